import ChatAPI
import Foundation

/// What a node of a cluster keeps under the server's lock beside the state: where the log has
/// been applied to, the service's connections, and its own connections waiting for their attach
/// entry or for their end to be logged.
struct ClusterCore: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    /// A connection of this node waiting for its attach entry to apply.
    struct PendingLink: Sendable {
        var mailbox: EventMailbox
        var interrupt: (@Sendable (DisconnectReason) -> Void)?
    }

    let nodeId: String
    /// The position of the last entry applied.
    var position: Int
    /// The time of the last entry applied (entries apply at non-decreasing times).
    var time = Date.distantPast
    var connections = ClusterConnections()
    /// This node's connections whose attach entry is on its way, by the entry's `ref`.
    var pendingLinks: [UInt64: PendingLink] = [:]
    /// This node's connections that ended here and whose end the log must tell (device, the
    /// position of its attach).
    private(set) var detachesToLog: [(DeviceKey, Int)] = []

    init(nodeId: String, position: Int, connections: ClusterConnections = ClusterConnections()) {
        self.nodeId = nodeId
        self.position = position
        self.connections = connections
    }

    /// Notes that a connection of this node ended here (the log is told after the lock).
    mutating func noteLocalDetach(of device: DeviceKey) {
        guard let connection = connections[device], connection.node == nodeId else { return }
        detachesToLog.append((device, connection.attachedAt))
    }

    /// Notes an attach of this node whose connection no longer waits: it is ended at once.
    mutating func noteOrphanAttach(of device: DeviceKey, at position: Int) {
        detachesToLog.append((device, position))
    }

    mutating func takeDetaches() -> [(DeviceKey, Int)] {
        defer { detachesToLog = [] }
        return detachesToLog
    }
}
