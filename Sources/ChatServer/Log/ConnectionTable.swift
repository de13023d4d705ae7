/// Which node each connected device of the service is on, as every node knows it from the change
/// log (``AppliedLog``): presence (online while any device of the user is connected anywhere),
/// the device cap and who is pushed count these, not a node's own links. A single node's table
/// holds its own connections (all on ``LocalChangeLog/nodeId``); a cluster's, every node's.
struct ConnectionTable: Sendable {
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
    /// What changed since ``takeChanges(readingChanged:reading:)`` (for the tables); `nil` when
    /// the table is not stored.
    private var changes: [DeviceKey: Connection?]?

    /// The connections of a restored snapshot; `stored`: whether the storage keeps the table
    /// (a cluster's, so that a node restarts knowing who is connected where), and so whether
    /// its changes are tracked.
    init(restoring connections: [DeviceKey: Connection] = [:], stored: Bool = true) {
        changes = [:]
        for (device, connection) in connections { connect(device, connection) }
        changes = stored ? [:] : nil
    }

    /// The connection rows to write since the last call: connections made or ended (`nil`), and
    /// those whose reading changed (`readingChanged`), each with what it reads now. Empty when
    /// the table is not stored.
    ///
    /// - Complexity: O(changes).
    mutating func takeChanges(
        readingChanged: Set<DeviceKey>, reading: [DeviceKey: Set<String>]
    ) -> [DeviceKey: Connection?] {
        guard var taken = changes else { return [:] }
        changes = [:]
        for device in readingChanged {
            if let connection = byDevice[device] { taken[device] = .some(connection) }
        }
        for (device, connection) in taken {
            guard var connection else { continue }
            connection.reading = reading[device] ?? []
            taken[device] = .some(connection)
        }
        return taken
    }

    subscript(device: DeviceKey) -> Connection? { byDevice[device] }

    /// Records `device` as connected (replacing where it was).
    mutating func connect(_ device: DeviceKey, _ connection: Connection) {
        if byDevice.updateValue(connection, forKey: device) == nil { countByUser[device.userId, default: 0] += 1 }
        changes?[device] = .some(connection)
    }

    /// Forgets `device`'s connection; returns it.
    @discardableResult
    mutating func disconnect(_ device: DeviceKey) -> Connection? {
        guard let connection = byDevice.removeValue(forKey: device) else { return nil }
        changes?[device] = .some(nil)
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
