import ChatAPI
import Foundation

/// Opening and ending a device's connection: each an entry of the change log (an attach, a
/// detach), applied as every entry is (``ServerCore/apply(_:at:time:isMine:)``).
extension ServerEngine {
    /// Opens a connection of `device`, ending `replacing` (this transport's previous connection)
    /// first: an attach entry of the change log (``ChangeLog/commit(_:on:admit:)``), which
    /// checks the connect (a ban, the device cap), replaces the device's connection elsewhere,
    /// registers the user on first connect and links the connection here as it applies.
    ///
    /// - Throws: `invalidArgument` (`userId`, `deviceId`); `unavailable` once the server is
    ///   closed; an injected connect failure; `forbidden` or `limitExceeded` from the checks.
    func connect(
        _ device: DeviceKey, replacing previous: UInt64?, mailbox: EventMailbox,
        interrupt: (@Sendable (DisconnectReason) -> Void)? = nil, resumingAfter sequence: Int?
    ) async throws(ChatError) -> (result: ConnectResult, linkId: UInt64) {
        try InputCheck.id(device.userId, field: "userId")
        try InputCheck.id(device.deviceId, field: "deviceId")
        var waitingRef: UInt64?
        do throws(ChatError) {
            let kind = ChangeEntry.Kind.attach(userId: device.userId, deviceId: device.deviceId, resumeAfter: sequence)
            let outcome = try await log.commit(kind, on: self) { (core, ref, now) throws(ChatError) in
                if core.isClosed { throw Self.closedError }
                if let error = core.faults.takeConnectFailure(for: device) { throw error }
                housekeep(&core, now: now)
                if let previous { core.detach(device, linkId: previous, reason: .requested) }
                core.applied.pendingLinks[ref] = AppliedLog.PendingLink(mailbox: mailbox, interrupt: interrupt)
                waitingRef = ref
            }
            guard case .connected(let result, let linkId) = outcome else {
                throw .unavailable("the server lost the connection")
            }
            return (result, linkId)
        } catch {
            // Not applied (yet): if it applies later, the connection ends at once.
            if let waitingRef { withCore { core in _ = core.applied.pendingLinks.removeValue(forKey: waitingRef) } }
            throw error
        }
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
        withCore { $0.detach(device, linkId: linkId, reason: reason) }
    }
}
