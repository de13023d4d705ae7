import ChatAPI
import Foundation

/// The devices the server knows and the events it owes them: numbering and replay logs (kept
/// across connections, so a device can resume), live connections, and the event faults
/// (duplicates, delays) applied on delivery.
///
/// A plain value, kept with ``ServerState`` in the engine's core, under the engine's lock
/// (`ServerEngine.core`, a `FairLock`). Posting to a connection's ``EventMailbox`` never
/// blocks, so delivering under the lock is safe and keeps every device's events in sequence
/// order; the readers it wakes are woken after the lock is released when the engine asks so
/// (``deferWakes()``).
struct EventHub: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    /// An envelope held back by an event-delay fault, and when it may go.
    private struct Held: Sendable {
        var envelope: EventEnvelope
        var until: Date
    }

    let logCapacity: Int
    /// Seconds an event stays in a replay log.
    let logRetention: TimeInterval
    /// What the hub keeps of one device: its replay log (kept across connections) and its live
    /// connection, if any. One entry per device, so an event costs one lookup of its device.
    private struct DeviceSlot: Sendable {
        var log: EventLog
        var link: ConnectionLink?
        /// Whether its newest number is in ``numberedDevices`` (counted nodes only).
        var isNumbered = false
    }

    /// Every device with a log.
    private var slots: [DeviceKey: DeviceSlot] = [:]
    /// Only devices with held envelopes have an entry.
    private var held: [DeviceKey: [Held]] = [:]
    /// The devices of each user with a log.
    private var devicesByUser: [String: [DeviceKey]] = [:]
    private var nextLinkId: UInt64 = 1
    /// The earliest release time of the events held since the engine last took it.
    var newHeldRelease: Date?
    /// When ``sweepLogsIfDue(now:)`` next trims every log.
    private var nextSweep = Date.distantPast
    /// The number after which every device's first event is numbered: 0 for a new server; for
    /// a restarted one, above every number given out before the restart (the stored
    /// ``StoredCounters/eventSequenceCeiling``), so that a device resuming across the restart
    /// is told to resync rather than resumed over events it never got. 0 on a node of a
    /// cluster, which restores each device's own count instead (``countDevices(restoring:)``).
    private(set) var sequenceBase: Int
    /// The highest event number given to any device.
    private(set) var highestSequence: Int
    /// On a node of a cluster, the devices whose newest event number (or log) is new since
    /// ``takeNumberedDevices()``: the tables keep every device's count, so a node restored from
    /// them numbers each device's next event as the running nodes do. `nil` on a single server.
    private var numberedDevices: [DeviceKey]?
    /// The most events a connection may have pending (``ServerConfiguration/maxPendingEvents``).
    let maxPendingEvents: Int?
    /// Connections past ``maxPendingEvents``: nothing more is put on their stream; the server
    /// disconnects them (``takeSlowDevices()``).
    private var slowDevices: Set<DeviceKey> = []

    /// Room a connection's stream keeps beyond ``maxPendingEvents``, so that the
    /// `.disconnected` that ends a slow connection (and a duplicated event) always fits.
    static let pendingReserve = 4

    /// How many events a connection's mailbox holds: ``maxPendingEvents`` plus
    /// ``pendingReserve`` when the pending events are limited (so the mailbox itself says how
    /// many are pending), else no limit.
    static func mailboxLimit(maxPendingEvents: Int?) -> Int? {
        maxPendingEvents.map { $0 + pendingReserve }
    }

    /// While the engine holds its lock for an operation, the readers to wake once it is
    /// released (see ``EventMailbox``); `nil` outside such an operation: readers are woken at
    /// once.
    private var deferredWakes: [EventMailbox.Wake]?

    /// From now until ``takeWakes()``, readers of posted events are woken by the caller, after
    /// it releases the server's lock.
    mutating func deferWakes() {
        if deferredWakes == nil { deferredWakes = [] }
    }

    /// The readers to wake for what was posted since ``deferWakes()``; later posts wake at once.
    mutating func takeWakes() -> [EventMailbox.Wake] {
        defer { deferredWakes = nil }
        return deferredWakes ?? []
    }

    /// Posts `item` to a connection's mailbox, waking its reader now or after the lock (see
    /// ``deferWakes()``).
    @discardableResult
    private mutating func put(_ item: ConnectionEvent, on link: ConnectionLink) -> EventMailbox.Posting {
        let (posting, wake) = link.mailbox.post(item)
        if let wake {
            if deferredWakes != nil { deferredWakes!.append(wake) } else { wake.run() }
        }
        return posting
    }

    init(logCapacity: Int, logRetention: TimeInterval, sequenceBase: Int = 0, maxPendingEvents: Int? = nil) {
        self.logCapacity = logCapacity
        self.logRetention = logRetention
        self.sequenceBase = sequenceBase
        self.maxPendingEvents = maxPendingEvents
        highestSequence = sequenceBase
    }

    /// Puts an event on a connection's stream, unless the connection is already too slow;
    /// marks it slow when this leaves more than ``maxPendingEvents`` pending.
    private mutating func yield(_ envelope: EventEnvelope, to device: DeviceKey, on link: ConnectionLink) {
        guard maxPendingEvents != nil else {
            put(.event(envelope), on: link)
            return
        }
        guard !slowDevices.contains(device) else { return }
        switch put(.event(envelope), on: link) {
        case .enqueued(let remaining?) where remaining >= Self.pendingReserve: break
        default: slowDevices.insert(device)
        }
    }

    /// The connected devices found too slow since the last call (the caller disconnects them).
    mutating func takeSlowDevices() -> [DeviceKey] {
        guard !slowDevices.isEmpty else { return [] }
        defer { slowDevices = [] }
        return slowDevices.filter { slots[$0]?.link != nil }
    }

    /// The number of the device's newest event (0 if none).
    func lastSequence(of device: DeviceKey) -> Int { slots[device]?.log.lastSequence ?? 0 }

    // MARK: Numbering on a node of a cluster

    /// Makes this the hub of a node of a cluster: every device's events are numbered 1, 2, 3 …
    /// from its first, and the devices of `counts` (the tables' devices, each with the number
    /// of its newest event) get a log numbered after their count, with nothing held. Every node
    /// applies every entry of the log in order, so each counts a device's events alike: a device
    /// resumes on any node exactly after its last event.
    ///
    /// - Precondition: no device has a log yet.
    /// - Complexity: O(devices in `counts`).
    mutating func countDevices(restoring counts: [DeviceKey: Int]) {
        precondition(slots.isEmpty, "devices are counted from the start")
        sequenceBase = 0
        numberedDevices = []
        for (device, count) in counts {
            slots[device] = DeviceSlot(log: EventLog(capacity: logCapacity, base: count))
            devicesByUser[device.userId, default: []].append(device)
            highestSequence = max(highestSequence, count)
        }
    }

    /// The devices of `userId` with a log, in the order they got one.
    func devices(of userId: String) -> [DeviceKey] { devicesByUser[userId] ?? [] }

    /// Every device with a log, with the number of its newest event.
    ///
    /// - Complexity: O(devices with a log).
    var eventCounts: [DeviceKey: Int] { slots.mapValues(\.log.lastSequence) }

    /// On a node of a cluster, the devices whose count moved (or that got a log) since the last
    /// call, each with the number of its newest event; empty on a single server.
    ///
    /// - Complexity: O(devices returned).
    mutating func takeNumberedDevices() -> [DeviceKey: Int] {
        guard let devices = numberedDevices, !devices.isEmpty else { return [:] }
        numberedDevices = []
        var counts: [DeviceKey: Int] = [:]
        counts.reserveCapacity(devices.count)
        for device in devices {
            slots[device]!.isNumbered = false
            counts[device] = slots[device]!.log.lastSequence
        }
        return counts
    }

    /// Notes that `slot`'s count moved (on a node of a cluster).
    private static func noteNumbered(_ device: DeviceKey, _ slot: inout DeviceSlot, in devices: inout [DeviceKey]?) {
        guard devices != nil, !slot.isNumbered else { return }
        slot.isNumbered = true
        devices!.append(device)
    }

    /// The devices with a live connection.
    var connectedDevices: [(device: DeviceKey, linkId: UInt64)] {
        slots.compactMap { device, slot in slot.link.map { (device, $0.id) } }
    }

    // MARK: Connections

    /// How a connect request was answered.
    struct Attachment: Sendable {
        var linkId: UInt64
        var status: ConnectResult.Status
        var lastSequence: Int
    }

    /// Attaches a new connection of `device` whose events go to `mailbox` (and whose end is
    /// told to `interrupt` too), ending any previous one of the same device. With
    /// `resumingAfter`, replays the missed envelopes first, or reports `.resyncRequired` when
    /// they are no longer all held (dropped by the log's capacity, or older than the retention
    /// at `now`).
    ///
    /// - Complexity: O(replayed events).
    mutating func attach(
        _ device: DeviceKey, mailbox: EventMailbox,
        interrupt: (@Sendable (DisconnectReason) -> Void)? = nil, resumingAfter sequence: Int?, now: Date
    ) -> Attachment {
        if let previous = slots[device]?.link {
            put(.disconnected(.replaced), on: previous)
            previous.interrupt?(.replaced)
        }
        ensureSlot(device)
        slots[device]!.log.trim(appendedBefore: now - logRetention)
        let log = slots[device]!.log
        let link = ConnectionLink(id: nextLinkId, mailbox: mailbox, interrupt: interrupt)
        nextLinkId += 1
        slots[device]!.link = link
        held[device] = nil
        slowDevices.remove(device)
        var status = ConnectResult.Status.new
        if let sequence {
            if let missed = log.elements(after: sequence) {
                status = .resumed
                for envelope in missed { yield(envelope, to: device, on: link) }
            } else {
                status = .resyncRequired
            }
        }
        return Attachment(linkId: link.id, status: status, lastSequence: log.lastSequence)
    }

    /// Gives `device` a replay log if it has none (on a node of a cluster, every node keeps one
    /// for every device of the service, so a device resumes on any node).
    mutating func ensureSlot(_ device: DeviceKey) {
        guard slots[device] == nil else { return }
        slots[device] = DeviceSlot(log: EventLog(capacity: logCapacity, base: sequenceBase))
        Self.noteNumbered(device, &slots[device]!, in: &numberedDevices)
        devicesByUser[device.userId, default: []].append(device)
    }

    /// Ends the connection `linkId` of `device` with `reason`; false if it is not the current one.
    @discardableResult
    mutating func detach(_ device: DeviceKey, linkId: UInt64, reason: DisconnectReason) -> Bool {
        guard let link = slots[device]?.link, link.id == linkId else { return false }
        slowDevices.remove(device)
        put(.disconnected(reason), on: link)
        link.interrupt?(reason)
        slots[device]!.link = nil
        held[device] = nil
        return true
    }

    /// The current connection id of `device`, if connected.
    func linkId(of device: DeviceKey) -> UInt64? { slots[device]?.link?.id }

    // MARK: Publishing

    /// Turns state changes into one envelope per recipient device, rendered for its user,
    /// appends each to the device's log and delivers it (now, twice, or later, as the faults
    /// say). Recipients with the same view of a change (``ServerState/ChannelView``) share one
    /// rendered event and its encoding.
    ///
    /// - Complexity: per emission, O(audience) checks when the audience is a listed set smaller
    ///   than the users with a log (members, a conversation's viewers, named users), else
    ///   O(users with a log); plus O(1) per envelope and one rendering per distinct view.
    mutating func publish(_ emissions: [Emission], state: ServerState, faults: inout FaultPlan, now: Date) {
        var channels = ChannelMemo()
        for emission in emissions {
            let prepared = state.prepare(emission)
            var views = ViewMemo()
            if let candidates = state.audienceCandidates(of: prepared, connectedUsers: devicesByUser.count) {
                for userId in Self.unique(candidates) {
                    guard let devices = devicesByUser[userId] else { continue }
                    publish(
                        prepared, to: userId, devices: devices, views: &views, channels: &channels, state: state,
                        faults: &faults, now: now)
                }
            } else {
                for (userId, devices) in devicesByUser {
                    publish(
                        prepared, to: userId, devices: devices, views: &views, channels: &channels, state: state,
                        faults: &faults, now: now)
                }
            }
        }
    }

    /// Sends the emission, as `userId` sees it, to each of their devices if they are in its
    /// audience; `views` holds the emission's events rendered so far, by view.
    private mutating func publish(
        _ prepared: PreparedEmission, to userId: String, devices: [DeviceKey],
        views: inout ViewMemo, channels: inout ChannelMemo, state: ServerState, faults: inout FaultPlan, now: Date
    ) {
        guard let key = state.audienceView(of: prepared, for: userId) else { return }
        var rendered: RenderedView
        if let known = views.lookup(key) {
            guard let known else { return }
            rendered = known
            if rendered.encoding == nil {
                // The view's second recipient: from here on its envelopes share one encoding.
                rendered.encoding = SharedEventEncoding()
                views.store(rendered, for: key)
            }
        } else {
            let made = state.event(for: prepared, view: key, now: now, channels: &channels).map {
                RenderedView(event: $0, encoding: devices.count > 1 ? SharedEventEncoding() : nil)
            }
            views.store(made, for: key)
            guard let made else { return }
            rendered = made
        }
        let cutoff = now - logRetention
        for device in devices {
            let (envelope, link) = Self.append(
                to: &slots[device]!, of: device, trimmingBefore: cutoff, at: now, numbering: &numberedDevices
            ) {
                EventEnvelope(sequence: $0, event: rendered.event, sharing: rendered.encoding)
            }
            highestSequence = max(highestSequence, envelope.sequence)
            deliver(envelope, to: device, on: link, faults: &faults, now: now)
        }
    }

    /// Drops what a device's log holds from before `cutoff`, then appends what `make` builds
    /// (noting the device's new count in `numbering` on a node of a cluster); returns it and the
    /// device's connection: one lookup of the device per event.
    private static func append(
        to slot: inout DeviceSlot, of device: DeviceKey, trimmingBefore cutoff: Date, at now: Date,
        numbering: inout [DeviceKey]?, _ make: (Int) -> EventEnvelope
    ) -> (EventEnvelope, ConnectionLink?) {
        slot.log.trim(appendedBefore: cutoff)
        noteNumbered(device, &slot, in: &numbering)
        return (slot.log.append(at: now, make), slot.link)
    }

    /// Puts `envelope` on the device's connection `link` (nothing when not connected), or holds
    /// it back behind a delay fault or earlier held envelopes.
    private mutating func deliver(
        _ envelope: EventEnvelope, to device: DeviceKey, on link: ConnectionLink?, faults: inout FaultPlan, now: Date
    ) {
        guard let link else { return }
        if let until = faults.eventDelay(for: device, now: now) {
            held[device, default: []].append(Held(envelope: envelope, until: until))
            if newHeldRelease.map({ until < $0 }) ?? true { newHeldRelease = until }
        } else if !held.isEmpty, held[device] != nil {
            held[device]!.append(Held(envelope: envelope, until: now))
        } else {
            yield(envelope, to: device, on: link)
            if faults.takeDuplication(for: device) { yield(envelope, to: device, on: link) }
        }
    }

    /// Drops the events older than the retention from every log, at most once every quarter of
    /// the retention: logs of devices that receive nothing and never reconnect shrink too.
    ///
    /// - Complexity: O(devices with a log + events dropped) when due, else O(1).
    mutating func sweepLogsIfDue(now: Date) {
        guard now >= nextSweep else { return }
        nextSweep = now + logRetention / 4
        let cutoff = now - logRetention
        for device in Array(slots.keys) { slots[device]!.log.trim(appendedBefore: cutoff) }
    }

    /// Delivers the held envelopes whose delay has passed, in order (an envelope never
    /// overtakes an older held one).
    ///
    /// - Complexity: O(devices with held envelopes + envelopes released).
    /// When the next held event is due, if any. O(devices with held events).
    var nextHeldRelease: Date? { held.values.compactMap { $0.first?.until }.min() }

    mutating func releaseHeld(now: Date) {
        for device in held.keys {
            guard let link = slots[device]?.link else { continue }
            var queue = held[device]!
            let due = queue.prefix { $0.until <= now }
            for item in due { yield(item.envelope, to: device, on: link) }
            queue.removeFirst(due.count)
            held[device] = queue.isEmpty ? nil : queue
        }
    }
}
