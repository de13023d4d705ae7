/// A database the server keeps its state in, row by row: the seam a shared database (the
/// `Server/` package's PostgreSQL store) plugs into, beside the built-in SQLite file.
///
/// The server encodes its state into opaque rows and decodes them itself; a database stores
/// each row's bytes exactly as given under its keys and returns them unchanged. It never reads
/// them. What the server hands to ``write(_:)`` is one transaction: all of it is committed, or
/// nothing is (the server then retries the same changes, merged with newer ones).
///
/// Contract, for an implementation:
/// - ``open()`` creates the schema on first use (recording a new ``ServerDatabaseContents/epoch``)
///   and returns every row but the messages. It is called once, before any other method.
/// - ``write(_:)`` is called by one writer at a time, in the order of the server's changes; it
///   returns once the batch is committed durably, or throws (nothing of the batch applied).
/// - ``messages(in:)`` reads committed message rows; the server asks for ranges it knows exist.
/// - ``close()`` releases connections; nothing is called after it.
///
/// - Threading: called from any task; an implementation is `Sendable`.
public protocol ServerDatabase: Sendable {
    /// Opens the database — creating or migrating its schema — and reads every row but the
    /// messages.
    ///
    /// - Throws: an error saying what is wrong (unreachable, a schema that is not ours or is
    ///   newer); the server reports it as `ChatError.unavailable` or refuses to start.
    func open() async throws -> ServerDatabaseContents

    /// The message rows within each range, in any order.
    ///
    /// - Complexity: one round trip for all the ranges is what a restart of a server with many
    ///   channels needs.
    func messages(in ranges: [ServerRow.MessageRange]) async throws -> [ServerRow.Message]

    /// Writes `batch` in one transaction and returns once it is committed.
    func write(_ batch: ServerDatabaseBatch) async throws

    /// Draws a new epoch, keeps it (every later ``open()`` returns it) and returns it: the
    /// history is declared another one (after a backup was restored).
    func startNewEpoch() async throws -> String

    /// Releases the database. Idempotent.
    func close() async
}

/// The rows of a server's state, as a database stores them: opaque bytes under their keys.
public enum ServerRow {
    /// A user's row.
    public struct User: Sendable, Hashable {
        public var userId: String
        public var value: [UInt8]
        public init(userId: String, value: [UInt8]) {
            self.userId = userId
            self.value = value
        }
    }

    /// A channel's rows: its own fields and its moderation state (`nil` in a ``ServerDatabaseBatch``:
    /// keep the stored one, which did not change).
    public struct Channel: Sendable, Hashable {
        public var channelId: String
        public var info: [UInt8]
        public var extras: [UInt8]?
        public init(channelId: String, info: [UInt8], extras: [UInt8]?) {
            self.channelId = channelId
            self.info = info
            self.extras = extras
        }
    }

    /// The key of a member's row.
    public struct MemberKey: Sendable, Hashable {
        public var channelId: String
        public var userId: String
        public init(channelId: String, userId: String) {
            self.channelId = channelId
            self.userId = userId
        }
    }

    /// A member's row.
    public struct Member: Sendable, Hashable {
        public var key: MemberKey
        public var value: [UInt8]
        public init(key: MemberKey, value: [UInt8]) {
            self.key = key
            self.value = value
        }
    }

    /// A message's row: one per channel and sequence number.
    public struct Message: Sendable, Hashable {
        public var channelId: String
        public var sequence: Int
        public var value: [UInt8]
        public init(channelId: String, sequence: Int, value: [UInt8]) {
            self.channelId = channelId
            self.sequence = sequence
            self.value = value
        }
    }

    /// A device connected to a node of a cluster (``ServerChangeLog``): which node, and the log
    /// position of the entry that connected it.
    public struct Connection: Sendable, Hashable {
        public var device: Device
        public var node: String
        public var attachedAt: Int
        /// The channels the device reads (its read marker follows their new messages).
        public var reading: [String]
        public init(device: Device, node: String, attachedAt: Int, reading: [String] = []) {
            self.device = device
            self.node = node
            self.attachedAt = attachedAt
            self.reading = reading
        }
    }

    /// How many events a device of a cluster's service was given (``ServerChangeLog``): its
    /// newest event's number, so that a node restored from the tables numbers the device's next
    /// event as the running nodes do. A device keeps its row for the life of the service.
    public struct DeviceEvents: Sendable, Hashable {
        public var device: Device
        /// The number of the device's newest event (0: none yet).
        public var lastSequence: Int
        public init(device: Device, lastSequence: Int) {
            self.device = device
            self.lastSequence = lastSequence
        }
    }

    /// The key of a ``Connection``'s row.
    public struct Device: Sendable, Hashable {
        public var userId: String
        public var deviceId: String
        public init(userId: String, deviceId: String) {
            self.userId = userId
            self.deviceId = deviceId
        }
    }

    /// The messages of one channel numbered within `sequences`.
    public struct MessageRange: Sendable, Hashable {
        public var channelId: String
        public var sequences: ClosedRange<Int>
        public init(channelId: String, sequences: ClosedRange<Int>) {
            self.channelId = channelId
            self.sequences = sequences
        }
    }
}

/// What ``ServerDatabase/open()`` returns: every row but the messages.
public struct ServerDatabaseContents: Sendable {
    /// The identity of the history the database holds (`ConnectResult.epoch`): drawn when its
    /// schema was created, the same at every open.
    public var epoch: String
    /// The server's counters by name, as the last batch that had them wrote them.
    public var counters: [String: Int]
    public var users: [ServerRow.User]
    public var channels: [ServerRow.Channel]
    public var members: [ServerRow.Member]
    /// On a cluster's database, the devices connected to its nodes (empty elsewhere).
    public var connections: [ServerRow.Connection]
    /// On a cluster's database, every device's event count (empty elsewhere).
    public var deviceEvents: [ServerRow.DeviceEvents]

    public init(
        epoch: String, counters: [String: Int] = [:], users: [ServerRow.User] = [], channels: [ServerRow.Channel] = [],
        members: [ServerRow.Member] = [], connections: [ServerRow.Connection] = [],
        deviceEvents: [ServerRow.DeviceEvents] = []
    ) {
        self.connections = connections
        self.deviceEvents = deviceEvents
        self.epoch = epoch
        self.counters = counters
        self.users = users
        self.channels = channels
        self.members = members
    }
}

/// One transaction's worth of changes (``ServerDatabase/write(_:)``): rows to insert or
/// replace, member rows to delete, counters to set.
public struct ServerDatabaseBatch: Sendable {
    public var users: [ServerRow.User] = []
    /// A channel whose `extras` is `nil` keeps its stored extras.
    public var channels: [ServerRow.Channel] = []
    public var members: [ServerRow.Member] = []
    public var removedMembers: [ServerRow.MemberKey] = []
    public var messages: [ServerRow.Message] = []
    /// On a cluster's database: connections to record, and devices no longer connected.
    public var connections: [ServerRow.Connection] = []
    public var removedConnections: [ServerRow.Device] = []
    /// On a cluster's database: event counts to set (a database that is never a cluster's may
    /// ignore them, as it ignores connections).
    public var deviceEvents: [ServerRow.DeviceEvents] = []
    /// Counters to set (the others keep their values).
    public var counters: [String: Int] = [:]

    public init() {}

    /// Whether the batch changes nothing.
    public var isEmpty: Bool {
        users.isEmpty && channels.isEmpty && members.isEmpty && removedMembers.isEmpty && messages.isEmpty
            && counters.isEmpty && connections.isEmpty && removedConnections.isEmpty && deviceEvents.isEmpty
    }
}
