import ChatAPI
import Foundation

/// Everything the server's lock guards: the domain state, the event hub and the fault plan.
/// Its methods are the steps every operation shares.
struct ServerCore: Sendable {
    var state: ServerState
    var hub: EventHub
    var faults = FaultPlan()

    init(configuration: ServerConfiguration) {
        state = ServerState(configuration: configuration)
        hub = EventHub(logCapacity: configuration.eventLogCapacity, logRetention: configuration.eventLogRetention)
    }

    /// Expires what has expired, releases held events whose delay has passed and, now and then,
    /// drops replay-log events older than the retention.
    mutating func housekeep(now: Date) {
        state.expireTimers(now: now)
        publishOutbox(now: now)
        hub.releaseHeld(now: now)
        hub.sweepLogsIfDue(now: now)
    }

    /// Turns the state's pending changes into events.
    mutating func publishOutbox(now: Date) {
        let emissions = state.drainOutbox()
        if !emissions.isEmpty { hub.publish(emissions, state: state, faults: &faults, now: now) }
    }

    /// Ends a device's connection: its reading stops, and so does its user's typing when no
    /// other device of the user is connected; the user goes offline then, unless
    /// `updatingPresence` is false (a connection being replaced by the same device's next one).
    mutating func detach(
        _ device: ServerState.DeviceKey, linkId: UInt64, reason: DisconnectReason, now: Date,
        updatingPresence: Bool = true
    ) {
        guard hub.detach(device, linkId: linkId, reason: reason) else { return }
        state.stopAllReading(device: device)
        if !hub.isConnected(userId: device.userId) {
            state.endAllTyping(userId: device.userId)
            if updatingPresence { state.setPresence(device.userId, isOnline: false, now: now) }
        }
        publishOutbox(now: now)
    }

    /// Brings the user's presence in line with their connections (online while any device is
    /// connected) and publishes the change, if any.
    mutating func updatePresence(of userId: String, now: Date) {
        state.setPresence(userId, isOnline: hub.isConnected(userId: userId), now: now)
        publishOutbox(now: now)
    }
}
