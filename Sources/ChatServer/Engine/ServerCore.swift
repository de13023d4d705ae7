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
    /// On a node of a cluster, what the change log replicates beside the state (`nil` on a single
    /// server). The state then changes only by applying log entries (``ServerEngine/apply(_:)``).
    var cluster: ClusterCore?
    /// Where the pushes of each message sent go (``ChatServer/deliverPushes(to:)``); none: no
    /// pushes are decided.
    var pushSink: (any PushSink)?
    /// The event ceiling last handed to the storage (``StoredCounters/eventSequenceCeiling``).
    private var eventSequenceCeiling: Int

    /// How far above the highest event number the stored ceiling is kept, so that a device's
    /// numbers never pass a ceiling that is not yet on disk: the ceiling moves up by this much
    /// whenever the highest number comes within half of it.
    static let eventSequenceReserve = 1_000_000

    init(configuration: ServerConfiguration) {
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
        if cluster != nil {
            changes.connections = clusterConnectionChanges()
            changes.deviceEvents = hub.takeNumberedDevices()
        }
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

    /// The connection rows to write: connections made or ended, and those whose reading changed,
    /// each with what it reads now.
    private mutating func clusterConnectionChanges() -> [ServerState.DeviceKey: ClusterConnections.Connection?] {
        var changes = cluster!.connections.takeChanges()
        for device in state.takeReadingChanges() {
            if let connection = cluster!.connections[device] { changes[device] = .some(connection) }
        }
        for (device, connection) in changes {
            guard var connection else { continue }
            connection.reading = state.readingByDevice[device] ?? []
            changes[device] = .some(connection)
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

    /// The time the state is read at when the clock says `now`: on a node of a cluster, the time
    /// of the last entry applied (the cluster's time, which no node's clock moves: every node
    /// answers alike at a position, and what expires, expires by a logged tick); else `now`.
    func stateTime(at now: Date) -> Date {
        guard let cluster, cluster.time != .distantPast else { return now }
        return cluster.time
    }

    /// Expires what has expired, releases held events whose delay has passed and, now and then,
    /// drops replay-log events older than the retention.
    mutating func housekeep(now: Date) {
        if cluster == nil {
            // On a node of a cluster timers expire only as log entries apply (at their times).
            state.expireTimers(now: now)
            publishEmissions(now: now)
        }
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
            detach(device, linkId: linkId, reason: .connectionLost(error), now: now)
        }
    }

    /// Ends a device's connection: its reading stops, and so does its user's typing when no
    /// other device of the user is connected; the user goes offline then, unless
    /// `updatingPresence` is false (a connection being replaced by the same device's next one).
    mutating func detach(
        _ device: ServerState.DeviceKey, linkId: UInt64, reason: DisconnectReason, now: Date,
        updatingPresence: Bool = true
    ) {
        guard hub.detach(device, linkId: linkId, reason: reason) else { return }
        if cluster != nil {
            // Every node learns it from the log (``ServerEngine/apply(_:)``).
            cluster!.noteLocalDetach(of: device)
            return
        }
        state.stopAllReading(device: device)
        if !hub.isConnected(userId: device.userId) {
            state.endAllTyping(userId: device.userId)
            if updatingPresence { state.setPresence(device.userId, isOnline: false, now: now) }
        }
        publishEmissions(now: now)
    }

    /// Brings the user's presence in line with their connections (online while any device is
    /// connected) and publishes the change, if any.
    mutating func updatePresence(of userId: String, now: Date) {
        let isOnline = cluster.map { $0.connections.count(of: userId) > 0 } ?? hub.isConnected(userId: userId)
        state.setPresence(userId, isOnline: isOnline, now: now)
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
