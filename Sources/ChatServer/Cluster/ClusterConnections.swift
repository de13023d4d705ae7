/// Which node each connected device of the service is on, as every node of a cluster knows it
/// from the change log: presence (online while any device of the user is connected anywhere)
/// and the per-user device cap count these, not a node's own connections.
struct ClusterConnections: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    struct Connection: Sendable, Hashable {
        /// The node the device is connected to.
        var node: String
        /// The position of the attach entry that connected it.
        var attachedAt: Int
        /// The channels it reads, as stored (filled in when written; the state keeps the live set).
        var reading: Set<String> = []
    }

    private(set) var byDevice: [DeviceKey: Connection] = [:]
    private var countByUser: [String: Int] = [:]
    /// What changed since ``takeChanges()`` (for the tables).
    private var changes: [DeviceKey: Connection?] = [:]

    /// The connections of a restored snapshot.
    init(restoring connections: [DeviceKey: Connection] = [:]) {
        for (device, connection) in connections { connect(device, connection) }
        changes = [:]
    }

    /// The connections made (or, `nil`, ended) since the last call.
    mutating func takeChanges() -> [DeviceKey: Connection?] {
        defer { changes = [:] }
        return changes
    }

    subscript(device: DeviceKey) -> Connection? { byDevice[device] }

    /// Records `device` as connected (replacing where it was).
    mutating func connect(_ device: DeviceKey, _ connection: Connection) {
        if byDevice.updateValue(connection, forKey: device) == nil { countByUser[device.userId, default: 0] += 1 }
        changes[device] = .some(connection)
    }

    /// Forgets `device`'s connection; returns it.
    @discardableResult
    mutating func disconnect(_ device: DeviceKey) -> Connection? {
        guard let connection = byDevice.removeValue(forKey: device) else { return nil }
        changes[device] = .some(nil)
        countByUser[device.userId]! -= 1
        if countByUser[device.userId] == 0 { countByUser[device.userId] = nil }
        return connection
    }

    /// The number of the user's devices connected to any node.
    func count(of userId: String) -> Int { countByUser[userId] ?? 0 }

    /// The devices connected to `node`.
    ///
    /// - Complexity: O(connected devices).
    func devices(on node: String) -> [DeviceKey] {
        byDevice.filter { $0.value.node == node }.map(\.key).sorted {
            ($0.userId, $0.deviceId) < ($1.userId, $1.deviceId)
        }
    }
}
