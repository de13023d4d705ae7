import ChatServer
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import PostgresNIO

/// The server's state in PostgreSQL: the ``ServerDatabase`` of `chat-server --postgres URL`.
///
/// Everything lives in the schema `chat` (no other schema is touched), created on first open in
/// one transaction under an advisory lock (two nodes starting at once create it once):
///
/// | table | rows |
/// |---|---|
/// | `chat.meta(key, value bigint)` | the schema version, the server's counters, each open server's write fence |
/// | `chat.identity(key, value text)` | `owner` (what marks the schema as ours), `epoch` |
/// | `chat.users(id, value bytea)` | one per user |
/// | `chat.channels(id, info bytea, extras bytea)` | one per channel, deleted ones too |
/// | `chat.members(channel, user_id, value bytea)` | one per member or banned user |
/// | `chat.messages(channel, sequence, value bytea)` | every message ever sent |
///
/// A `chat` schema that is not ours, or ours at a newer version, is refused untouched
/// (``PostgresStoreError``). Each ``write(_:)`` is one statement — one round trip, one commit —
/// of multi-row clauses (`unnest` of arrays), whatever the batch's size.
///
/// - Threading: thread-safe. Its connection pool, ``client``, runs as a service of the
///   caller's `ServiceGroup` (as in `chat-server`), or in a task of its own from `init` to
///   ``close()`` (`runsItsClient`).
public final class PostgresServerDatabase: ServerChangeLog {
    /// The schema version this build writes: the number of ``migrations``.
    public static var schemaVersion: Int { migrations.count }
    /// What `chat.identity`'s `owner` says in a schema of ours.
    static let owner = "livechannels-chat-server"

    /// The connection pool (at most 8 connections). Unless the database runs it itself
    /// (`runsItsClient`), run it as a service of the `ServiceGroup` that runs the server, before
    /// the server's own service: nothing reaches PostgreSQL until it runs.
    public let client: PostgresClient
    let endpoint: PostgresEndpoint
    let logger: Logger
    /// The time limits and keep-alives of every session this database opens (the pool's, the
    /// notification listener's, the lease's), sent as startup parameters, so that no session of
    /// a node that stops (SIGSTOP, a cut cable, a crash in the middle of a transaction) holds the
    /// change log's lock — the row of `chat.log_head` an append updates — for long:
    ///
    /// - `idle_in_transaction_session_timeout` 2 s: a transaction whose client sends nothing
    ///   more (frozen between two statements, or before its commit) is ended with its session,
    ///   and its locks go with it;
    /// - `lock_timeout` 5 s: an append that waits longer for the log's lock gives up (its caller
    ///   is told, and may retry) rather than queue behind a stalled one;
    /// - `statement_timeout` 10 s: no statement runs longer (opening, which reads every table,
    ///   lifts it for its own transaction);
    /// - `tcp_keepalives_*`: PostgreSQL probes an idle session's peer after 5 s, every 2 s, and
    ///   drops it after 3 probes without an answer (a node cut off, not just frozen).
    ///
    /// An append sends its statements back to back, so 2 s between two of them is a node that
    /// stopped. A stalled node holds the others' appends up for about 2 s, and a write whose
    /// session was ended never committed (the node's caller was told that it may not have).
    public static let sessionLimits: [(String, String)] = [
        ("idle_in_transaction_session_timeout", "2s"), ("lock_timeout", "5s"), ("statement_timeout", "10s"),
        ("tcp_keepalives_idle", "5"), ("tcp_keepalives_interval", "2"), ("tcp_keepalives_count", "3"),
    ]

    /// This database's lease of a node id (``lease(node:)``), once taken.
    let heldLease = NIOLockedValueBox<NodeLease?>(nil)

    /// How long ``open()`` waits for PostgreSQL to answer.
    let patience: Duration
    let runner: Task<Void, Never>?
    /// Identifies this open database's writes in `chat.meta` (their fence).
    let writerId = PostgresServerDatabase.randomEpoch()
    /// The number of the last write begun.
    let writeNumbers = NIOLockedValueBox(0)

    /// A database at `endpoint`; nothing is sent before ``open()``.
    ///
    /// - Parameters:
    ///   - patience: how long ``open()`` waits for PostgreSQL (30 s: a server started with its
    ///     database, as in a deployment, waits for it).
    ///   - runsItsClient: `true` runs ``client`` in a task of its own until ``close()``;
    ///     `false` leaves it to the caller's `ServiceGroup`.
    public init(
        _ endpoint: PostgresEndpoint, patience: Duration = .seconds(30), runsItsClient: Bool = true,
        logger: Logger = Logger(label: "chat-server.postgres")
    ) {
        self.endpoint = endpoint
        self.logger = logger
        self.patience = patience
        var configuration = PostgresClient.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
            database: endpoint.database, tls: Self.clientTLS(endpoint))
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = Self.sessionLimits
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        runner = runsItsClient ? Task { await client.run() } : nil
    }

    deinit { runner?.cancel() }

    // MARK: ServerDatabase

    /// Waits for PostgreSQL (up to the patience given) and creates the schema, or refuses one
    /// that is not ours: what `chat-server` runs first, to tell an unreachable database (exit 1)
    /// from a schema it must not touch (exit 2). ``open()`` does it too.
    ///
    /// - Throws: ``PostgresStoreError``, or PostgreSQL's error (a wrong password, a database
    ///   that does not exist).
    public func prepare() async throws {
        try await waitUntilReachable()
        try await ensureSchema()
    }

    /// Reads the state's tables in one transaction (a consistent snapshot, at the log position
    /// it records as the counter `logPosition`).
    public func open() async throws -> ServerDatabaseContents {
        try await prepare()
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            // Every table is read here: as long as they take (``sessionLimits``).
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            return try await self.readContents(connection)
        }
    }

    /// The state's tables, read on `connection` (in the caller's transaction).
    func readContents(_ connection: PostgresConnection) async throws -> ServerDatabaseContents {
        let epoch =
            try await connection.query("SELECT value FROM chat.identity WHERE key = 'epoch'", logger: logger)
            .collect().first?.decode(String.self) ?? ""
        var contents = ServerDatabaseContents(epoch: epoch)
        contents.counters = try await readCounters(connection)
        contents.users = try await readUsers(connection)
        contents.channels = try await readChannels(connection)
        contents.members = try await readMembers(connection)
        contents.connections = try await readConnections(connection)
        contents.deviceEvents = try await readDeviceEvents(connection)
        return contents
    }

    func readCounters(_ connection: PostgresConnection) async throws -> [String: Int] {
        var counters: [String: Int] = [:]
        for try await (key, value) in try await connection.query("SELECT key, value FROM chat.meta", logger: logger)
            .decode((String, Int).self)
        where key != "schema_version" && !key.hasPrefix("write_fence:") {
            if key == Self.snapshotKey {
                counters["logPosition"] = value
            } else {
                counters[key] = value
            }
        }
        return counters
    }

    func readUsers(_ connection: PostgresConnection) async throws -> [ServerRow.User] {
        var users: [ServerRow.User] = []
        for try await (id, value) in try await connection.query("SELECT id, value FROM chat.users", logger: logger)
            .decode((String, ByteBuffer).self)
        {
            users.append(ServerRow.User(userId: id, value: Array(value.readableBytesView)))
        }
        return users
    }

    func readChannels(_ connection: PostgresConnection) async throws -> [ServerRow.Channel] {
        var channels: [ServerRow.Channel] = []
        for try await (id, info, extras) in try await connection.query(
            "SELECT id, info, extras FROM chat.channels", logger: logger
        )
        .decode((String, ByteBuffer, ByteBuffer?).self) {
            channels.append(
                ServerRow.Channel(
                    channelId: id, info: Array(info.readableBytesView),
                    extras: extras.map { Array($0.readableBytesView) }))
        }
        return channels
    }

    func readMembers(_ connection: PostgresConnection) async throws -> [ServerRow.Member] {
        var members: [ServerRow.Member] = []
        for try await (channel, user, value) in try await connection.query(
            "SELECT channel, user_id, value FROM chat.members", logger: logger
        )
        .decode((String, String, ByteBuffer).self) {
            members.append(
                ServerRow.Member(
                    key: ServerRow.MemberKey(channelId: channel, userId: user), value: Array(value.readableBytesView)))
        }
        return members
    }

    func readDeviceEvents(_ connection: PostgresConnection) async throws -> [ServerRow.DeviceEvents] {
        var counts: [ServerRow.DeviceEvents] = []
        for try await (user, device, lastSequence) in try await connection.query(
            "SELECT user_id, device_id, last_sequence FROM chat.device_events", logger: logger
        )
        .decode((String, String, Int).self) {
            counts.append(
                ServerRow.DeviceEvents(
                    device: ServerRow.Device(userId: user, deviceId: device), lastSequence: lastSequence))
        }
        return counts
    }

    func readConnections(_ connection: PostgresConnection) async throws -> [ServerRow.Connection] {
        var connections: [ServerRow.Connection] = []
        for try await (user, device, node, attachedAt, reading) in try await connection.query(
            "SELECT user_id, device_id, node, attached_at, reading FROM chat.connections", logger: logger
        )
        .decode((String, String, String, Int, String).self) {
            connections.append(
                ServerRow.Connection(
                    device: ServerRow.Device(userId: user, deviceId: device), node: node, attachedAt: attachedAt,
                    reading: reading.isEmpty ? [] : reading.components(separatedBy: Self.readingSeparator)))
        }
        return connections
    }

    /// The messages of `ranges`, in one query (a restart's store asks a few thousand channels
    /// at a time, several at once), in the order of `ranges` and of sequence.
    ///
    /// The database packs up to ``messagesPerPackedRow`` messages of a channel into one row
    /// (each as its sequence, its length and its bytes), so a restart's million messages cross
    /// the wire as a tenth as many rows: the client's cost per row, not the bytes, was what a
    /// restart waited for.
    public func messages(in ranges: [ServerRow.MessageRange]) async throws -> [ServerRow.Message] {
        let channels = ranges.map(\.channelId)
        let lowers = ranges.map(\.sequences.lowerBound)
        let uppers = ranges.map(\.sequences.upperBound)
        let query: PostgresQuery = """
            SELECT r.i, string_agg(int8send(m.sequence) || int4send(length(m.value)) || m.value, ''::bytea ORDER BY m.sequence)
            FROM unnest(\(channels)::text[], \(lowers)::bigint[], \(uppers)::bigint[]) WITH ORDINALITY AS r(channel, low, high, i)
            JOIN chat.messages m ON m.channel = r.channel AND m.sequence BETWEEN r.low AND r.high
            GROUP BY r.i, m.sequence / \(Self.messagesPerPackedRow)
            ORDER BY r.i, min(m.sequence)
            """
        var rows: [ServerRow.Message] = []
        for try await (ordinal, packed) in try await client.query(query, logger: logger).decode((Int, ByteBuffer).self)
        {
            guard ordinal >= 1, ordinal <= ranges.count else {
                throw PostgresStoreError.malformedRow("a range number \(ordinal)")
            }
            let channelId = channels[ordinal - 1]
            var packed = packed
            while packed.readableBytes > 0 {
                guard let sequence = packed.readInteger(as: Int64.self),
                    let length = packed.readInteger(as: Int32.self),
                    length >= 0, let value = packed.readBytes(length: Int(length))
                else { throw PostgresStoreError.malformedRow("the messages of channel '\(channelId)'") }
                rows.append(ServerRow.Message(channelId: channelId, sequence: Int(sequence), value: value))
            }
        }
        return rows
    }

    /// At most how many messages of a channel one row of ``messages(in:)`` packs: bounds a row
    /// (the largest messages times this) while keeping rows few.
    static let messagesPerPackedRow = 100

    /// How long a write may take before it is reported failed (the server then fails the calls
    /// it covered with `unavailable`, and writes their changes again with a later batch: rows
    /// are current values, so writing them twice is harmless). Half the 10 s within which the
    /// protocol pins a failure, so that a busy machine still fails a call in time; a group
    /// commit takes milliseconds.
    public static let writeTimeout: Duration = .seconds(5)

    public func write(_ batch: ServerDatabaseBatch) async throws {
        guard !batch.isEmpty else { return }
        let number = writeNumbers.withLockedValue { number in
            number += 1
            return number
        }
        // Bounded without waiting for the transaction to end: a query on a connection that
        // PostgreSQL dropped under it can wait for good, and cancelling it does not end it. The
        // fence makes such a transaction harmless should it ever commit after a newer one.
        let work = Task { try await self.writeTransaction(batch, number: number) }
        _ = try await withinWriteTimeout(work, didNot: "commit")
    }

    /// The end of `work`, or `timeout()` thrown after `limit` (`work` then cancelled and left
    /// to end when it does): ``TimeLimit``'s bound, with the store's error.
    static func result(
        of work: Task<Void, any Error>, within limit: Duration, timeout: @escaping @Sendable () -> any Error
    ) async throws {
        try await value(of: work, within: limit, timeout: timeout)
    }

    /// The key of this database's write fence in `chat.meta`: one per open database (process).
    private var fenceKey: String { "write_fence:\(writerId)" }

    /// Writes `batch` in one transaction, unless a write numbered after `number` has committed
    /// already (``PostgresStoreError/superseded``): its rows are current values, and a newer
    /// write holds newer ones.
    ///
    /// One statement — data-modifying `WITH` clauses over `unnest`ed arrays, each conditional on
    /// the fence advancing — so a batch of any size costs one round trip and one commit.
    func writeTransaction(_ batch: ServerDatabaseBatch, number: Int) async throws {
        let statement = WriteStatement(fence: fenceKey, number: number, batch: batch)
        var advanced = 0
        for try await count in try await client.execute(statement, logger: logger) { advanced = count }
        if advanced == 0 { throw PostgresStoreError.superseded(number) }
    }

    public func startNewEpoch() async throws -> String {
        let epoch = Self.randomEpoch()
        try await client.query("UPDATE chat.identity SET value = \(epoch) WHERE key = 'epoch'", logger: logger)
        return epoch
    }

    /// Removes this database's write fence (when PostgreSQL answers within a second) and stops
    /// the client it runs itself; one run by a `ServiceGroup` stops with the group.
    public func close() async {
        await releaseLease()
        let fence = fenceKey
        let removal = Task { try await client.query("DELETE FROM chat.meta WHERE key = \(fence)", logger: logger) }
        try? await Self.result(of: Task { _ = try await removal.value }, within: .seconds(1)) { CancellationError() }
        runner?.cancel()
    }
}
