import ChatAPI
import Foundation

/// Everything the server's lock guards: the domain state, the event hub and the fault plan.
/// Its methods are the steps every operation shares.
struct ServerCore: Sendable {
    var state: ServerState
    var hub: EventHub
    var faults = FaultPlan()
    /// Request, message and creation rates of devices and users.
    var limits: ServerLimits
    /// Set by ``ServerEngine/close()``: every later operation throws `unavailable`.
    var isClosed = false
    /// What the change log has applied: its position and time, the service's connections, and
    /// what this node owes the log. The state changes only by applying entries
    /// (``apply(_:at:time:isMine:)``), on a single node (a log of one) as on a cluster.
    var applied: AppliedLog
    /// Where the pushes of each message sent go (``ChatServer/deliverPushes(to:)``); none: no
    /// pushes are decided.
    var pushSink: (any PushSink)?
    /// The event ceiling last handed to the storage (``StoredCounters/eventSequenceCeiling``).
    private var eventSequenceCeiling: Int

    /// How far above the highest event number the stored ceiling is kept, so that a device's
    /// numbers never pass a ceiling that is not yet on disk: the ceiling moves up by this much
    /// whenever the highest number comes within half of it.
    static let eventSequenceReserve = 1_000_000

    /// The applied log of a single node that has applied nothing yet: its connections are its
    /// own and are not stored.
    static func localLog(epoch: String) -> AppliedLog {
        AppliedLog(
            nodeId: LocalChangeLog.nodeId, epoch: epoch, position: 0,
            connections: ConnectionTable(stored: false))
    }

    init(configuration: ServerConfiguration) {
        applied = Self.localLog(epoch: "")
        state = ServerState(configuration: configuration)
        hub = EventHub(
            logCapacity: configuration.eventLogCapacity, logRetention: configuration.eventLogRetention,
            maxPendingEvents: configuration.maxPendingEvents)
        limits = ServerLimits(configuration: configuration)
        eventSequenceCeiling = 0
    }

    /// The core of a server restarted from `stored`; its devices' events are numbered above
    /// every number given out before.
    init(configuration: ServerConfiguration, restoring stored: StoredState) {
        applied = Self.localLog(epoch: "")
        state = ServerState(configuration: configuration, restoring: stored)
        let base = stored.counters.eventSequenceCeiling
        hub = EventHub(
            logCapacity: configuration.eventLogCapacity, logRetention: configuration.eventLogRetention,
            sequenceBase: base,
            maxPendingEvents: configuration.maxPendingEvents)
        limits = ServerLimits(configuration: configuration)
        eventSequenceCeiling = base
    }

    /// What the storage must write since the last call: the state's changes, and the counters
    /// whenever they moved (the event ceiling included, raised ahead of the highest event).
    mutating func takeStorageChanges() -> StorageChanges {
        var changes = state.takeStorageChanges()
        changes.connections = applied.connections.takeChanges(
            readingChanged: state.takeReadingChanges(), reading: state.readingByDevice)
        changes.deviceEvents = hub.takeNumberedDevices()
        if hub.highestSequence + Self.eventSequenceReserve / 2 > eventSequenceCeiling {
            eventSequenceCeiling = hub.highestSequence + Self.eventSequenceReserve
            changes.countersChanged = true
        }
        if changes.countersChanged {
            changes.counters = state.counters
            changes.counters.eventSequenceCeiling = eventSequenceCeiling
        }
        return changes
    }

    /// Forgets the changes (a server without storage).
    mutating func discardStorageChanges() {
        state.discardStorageChanges()
        state.readingChanged = []
    }

    /// The deadlines set since the last call (typing, mutes, rate limits, held events), the
    /// earliest; clears them.
    mutating func takeNewDeadline() -> Date? {
        let held = hub.newHeldRelease
        hub.newHeldRelease = nil
        return [state.takeNewDeadline(), held].compactMap { $0 }.min()
    }

    /// The earliest pending deadline of all.
    var nextDeadline: Date? { [state.nextDeadline, hub.nextHeldRelease].compactMap { $0 }.min() }

    /// Releases held events whose delay has passed, now and then drops replay-log events older
    /// than the retention, and ends too slow connections. (Timers expire as entries apply: see
    /// ``ChangeLog/advance(_:to:)``.)
    mutating func housekeep(now: Date) {
        hub.releaseHeld(now: now)
        hub.sweepLogsIfDue(now: now)
        disconnectSlowDevices(now: now)
    }

    /// Turns the state's pending changes into events, and disconnects the devices that fell
    /// too far behind reading them.
    mutating func publishEmissions(now: Date) {
        let emissions = state.drainEmissions()
        if !emissions.isEmpty { hub.publish(emissions, state: state, faults: &faults, now: now) }
        disconnectSlowDevices(now: now)
    }

    /// Disconnects every device with more than ``ServerConfiguration/maxPendingEvents`` events
    /// pending: `.connectionLost(.limitExceeded)` (over the wire, close 4009).
    mutating func disconnectSlowDevices(now: Date) {
        for device in hub.takeSlowDevices() {
            guard let linkId = hub.linkId(of: device), let limit = hub.maxPendingEvents else { continue }
            let error = ChatError.limitExceeded(
                "device '\(device.deviceId)' of user '\(device.userId)' is too slow: more than \(limit) events pending")
            detach(device, linkId: linkId, reason: .connectionLost(error))
        }
    }

    /// Ends this node's connection `linkId` of `device` (nothing if it is not the current one):
    /// the device is told `reason` at once; its end is an entry of the log, noted here and
    /// logged as the hold ends (``ChangeLog/settle(_:now:)``), which stops its reading and, when
    /// it was its user's last device, its user's typing and presence (``endConnection(_:reason:now:)``).
    mutating func detach(_ device: ServerState.DeviceKey, linkId: UInt64, reason: DisconnectReason) {
        guard hub.detach(device, linkId: linkId, reason: reason) else { return }
        applied.noteLocalDetach(of: device)
    }

    /// Brings the user's presence in line with their connections (online while any device is
    /// connected to any node) and publishes the change, if any.
    mutating func updatePresence(of userId: String, now: Date) {
        state.setPresence(userId, isOnline: applied.connections.count(of: userId) > 0, now: now)
        publishEmissions(now: now)
    }
}

extension ServerCore {
    /// `response` for `device`, with its position in the device's event stream and the
    /// revision it was read at.
    func envelope(for device: ServerState.DeviceKey, _ response: ChatResponse) -> ResponseEnvelope {
        ResponseEnvelope(position: hub.lastSequence(of: device), revision: state.revision, response: response)
    }
}
