import ChatAPI
import Foundation

/// Opening and ending a device's connection: the device cap, replacing a transport's previous
/// connection, presence.
extension ServerEngine {
    /// Opens a connection of `device`, ending `replacing` (this transport's previous
    /// connection) first, registering the user on first connect.
    ///
    /// - Throws: `invalidArgument` (`userId`, `deviceId`); an injected connect failure.
    func connect(
        _ device: DeviceKey, replacing previous: UInt64?, mailbox: EventMailbox,
        interrupt: (@Sendable (DisconnectReason) -> Void)? = nil, resumingAfter sequence: Int?
    ) throws(ChatError) -> (result: ConnectResult, linkId: UInt64, ticket: Int) {
        try InputCheck.id(device.userId, field: "userId")
        try InputCheck.id(device.deviceId, field: "deviceId")
        let ((result, linkId), ticket) = try withCore {
            (core: inout ServerCore) throws(ChatError) -> (ConnectResult, UInt64) in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            if let error = core.faults.takeConnectFailure(for: device) { throw error }
            core.housekeep(now: now)
            try core.checkConnect(of: device)
            if let previous {
                core.detach(device, linkId: previous, reason: .requested, now: now, updatingPresence: false)
            }
            core.state.ensureUser(device.userId, now: now)
            let attachment = core.hub.attach(
                device, mailbox: mailbox, interrupt: interrupt, resumingAfter: sequence, now: now)
            core.updatePresence(of: device.userId, now: now)
            core.disconnectSlowDevices(now: now)  // a replay longer than the pending limit
            let result = ConnectResult(
                status: attachment.status, currentUser: core.state.users[device.userId]!,
                lastSequence: attachment.lastSequence, epoch: epoch)
            return (result, attachment.linkId)
        }
        return (result, linkId, ticket)
    }

    /// Whether a connect of `device` would pass the checks now (a service ban, the device cap):
    /// what a network front asks before it upgrades a connection.
    ///
    /// - Throws: `forbidden` or `limitExceeded` as
    ///   ``connect(_:replacing:mailbox:interrupt:resumingAfter:)`` would.
    func checkConnect(of device: DeviceKey) throws(ChatError) {
        try core.withLock { (core: inout ServerCore) throws(ChatError) in try core.checkConnect(of: device) }
    }

    /// Ends connection `linkId` of `device` (no effect if it is not the current one).
    func disconnect(_ device: DeviceKey, linkId: UInt64, reason: DisconnectReason) {
        withCore { $0.detach(device, linkId: linkId, reason: reason, now: clock.now) }
    }
}
