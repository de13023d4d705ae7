import ChatAPI
import Foundation

/// What the engine keeps of the change log under its lock beside the state, on every node alike
/// (a single node is a log of one): where the log has been applied to and when, the service's
/// connections, this node's connections waiting for their attach entry, and the entries this
/// node owes the log (the ends of its own connections), handed to its ``ChangeLog`` as each hold
/// of the lock ends.
struct AppliedLog: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    /// A connection of this node waiting for its attach entry to apply.
    struct PendingLink: Sendable {
        var mailbox: EventMailbox
        var interrupt: (@Sendable (DisconnectReason) -> Void)?
    }

    /// This node's name in the entries it writes and in ``connections``.
    let nodeId: String
    /// The identity of the history the log belongs to (``ChatAPI/ConnectResult/epoch``).
    let epoch: String
    /// The position of the last entry applied.
    var position: Int
    /// The time of the last entry applied (entries apply at non-decreasing times).
    var time = Date.distantPast
    /// Who is connected where, as the entries applied so far say.
    var connections: ConnectionTable
    /// This node's connections whose attach entry is on its way, by the entry's `ref`.
    var pendingLinks: [UInt64: PendingLink] = [:]
    /// The entries this node must log: the ends of its own connections (noted under the lock,
    /// taken by ``takeEntriesToLog()`` as the hold ends).
    private var entriesToLog: [ChangeEntry.Kind] = []
    /// The last ref drawn by ``newRef()``.
    private var lastRef: UInt64 = 0

    init(nodeId: String, epoch: String, position: Int, connections: ConnectionTable) {
        self.nodeId = nodeId
        self.epoch = epoch
        self.position = position
        self.connections = connections
    }

    /// A ref no entry of this run of this node used before (for a log whose refs are not
    /// drawn elsewhere: ``LocalChangeLog``).
    mutating func newRef() -> UInt64 {
        lastRef += 1
        return lastRef
    }

    /// Notes that a connection of this node ended here: its end is logged (and so applied) as
    /// the hold ends.
    mutating func noteLocalDetach(of device: DeviceKey) {
        guard let connection = connections[device], connection.node == nodeId else { return }
        entriesToLog.append(
            .detach(userId: device.userId, deviceId: device.deviceId, attachedAt: connection.attachedAt))
    }

    /// Notes an attach of this node whose connection no longer waits: it is ended at once.
    mutating func noteOrphanAttach(of device: DeviceKey, at position: Int) {
        entriesToLog.append(.detach(userId: device.userId, deviceId: device.deviceId, attachedAt: position))
    }

    /// Whether entries wait to be logged.
    var owesEntries: Bool { !entriesToLog.isEmpty }

    /// The entries to log, in the order they were noted; forgets them.
    mutating func takeEntriesToLog() -> [ChangeEntry.Kind] {
        defer { entriesToLog = [] }
        return entriesToLog
    }
}
