import ChatServer
import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

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
public final class PostgresServerDatabase: ServerDatabase {
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
    /// How long ``open()`` waits for PostgreSQL to answer.
    let patience: Duration
    private let runner: Task<Void, Never>?
    /// Identifies this open database's writes in `chat.meta` (their fence).
    private let writerId = PostgresServerDatabase.randomEpoch()
    /// The number of the last write begun.
    private let writeNumbers = Mutex(0)

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

    /// Reads the state's tables at once, each on a connection of its own.
    public func open() async throws -> ServerDatabaseContents {
        try await prepare()
        async let epoch = epoch()
        async let counters = readCounters()
        async let users = readUsers()
        async let channels = readChannels()
        async let members = readMembers()
        var contents = ServerDatabaseContents(epoch: try await epoch)
        contents.counters = try await counters
        contents.users = try await users
        contents.channels = try await channels
        contents.members = try await members
        return contents
    }

    private func readCounters() async throws -> [String: Int] {
        var counters: [String: Int] = [:]
        for try await (key, value) in try await client.query("SELECT key, value FROM chat.meta", logger: logger)
            .decode((String, Int).self)
        where key != "schema_version" && !key.hasPrefix("write_fence:") {
            counters[key] = value
        }
        return counters
    }

    private func readUsers() async throws -> [ServerRow.User] {
        var users: [ServerRow.User] = []
        for try await (id, value) in try await client.query("SELECT id, value FROM chat.users", logger: logger)
            .decode((String, ByteBuffer).self)
        {
            users.append(ServerRow.User(userId: id, value: Array(value.readableBytesView)))
        }
        return users
    }

    private func readChannels() async throws -> [ServerRow.Channel] {
        var channels: [ServerRow.Channel] = []
        for try await (id, info, extras) in try await client.query("SELECT id, info, extras FROM chat.channels", logger: logger)
            .decode((String, ByteBuffer, ByteBuffer?).self)
        {
            channels.append(
                ServerRow.Channel(channelId: id, info: Array(info.readableBytesView), extras: extras.map { Array($0.readableBytesView) }))
        }
        return channels
    }

    private func readMembers() async throws -> [ServerRow.Member] {
        var members: [ServerRow.Member] = []
        for try await (channel, user, value) in try await client.query("SELECT channel, user_id, value FROM chat.members", logger: logger)
            .decode((String, String, ByteBuffer).self)
        {
            members.append(
                ServerRow.Member(key: ServerRow.MemberKey(channelId: channel, userId: user), value: Array(value.readableBytesView)))
        }
        return members
    }

    /// The messages of `ranges`, in one query (a restart's store asks a few thousand channels
    /// at a time, several at once).
    public func messages(in ranges: [ServerRow.MessageRange]) async throws -> [ServerRow.Message] {
        try await readMessages(in: ranges[...])
    }

    private func readMessages(in ranges: ArraySlice<ServerRow.MessageRange>) async throws -> [ServerRow.Message] {
        let channels = ranges.map(\.channelId)
        let lowers = ranges.map(\.sequences.lowerBound)
        let uppers = ranges.map(\.sequences.upperBound)
        let query: PostgresQuery = """
            SELECT m.channel, m.sequence, m.value
            FROM unnest(\(channels)::text[], \(lowers)::bigint[], \(uppers)::bigint[]) AS r(channel, low, high)
            JOIN chat.messages m ON m.channel = r.channel AND m.sequence BETWEEN r.low AND r.high
            """
        var rows: [ServerRow.Message] = []
        for try await (channel, sequence, value) in try await client.query(query, logger: logger).decode((String, Int, ByteBuffer).self) {
            rows.append(ServerRow.Message(channelId: channel, sequence: sequence, value: Array(value.readableBytesView)))
        }
        return rows
    }

    /// How long a write may take before it is reported failed (the server then fails the calls
    /// it covered with `unavailable`, and writes their changes again with a later batch: rows
    /// are current values, so writing them twice is harmless).
    public static let writeTimeout: Duration = .seconds(8)

    public func write(_ batch: ServerDatabaseBatch) async throws {
        guard !batch.isEmpty else { return }
        let number = writeNumbers.withLock { number in
            number += 1
            return number
        }
        // Bounded without waiting for the transaction to end: a query on a connection that
        // PostgreSQL dropped under it can wait for good, and cancelling it does not end it. The
        // fence makes such a transaction harmless should it ever commit after a newer one.
        let work = Task { try await self.writeTransaction(batch, number: number) }
        try await Self.result(of: work, within: Self.writeTimeout) {
            PostgresStoreError.unreachable(
                "PostgreSQL at \(self.endpoint.host):\(self.endpoint.port) did not commit within \(Self.writeTimeout)")
        }
    }

    /// The value of `work`, or `timeout()` thrown after `limit` (`work` then cancelled and left
    /// to end when it does).
    private static func result(
        of work: Task<Void, any Error>, within limit: Duration, timeout: @escaping @Sendable () -> any Error
    ) async throws {
        /// The caller's continuation, resumed by whichever comes first.
        final class Waiter: Sendable {
            let continuation = Mutex<CheckedContinuation<Void, any Error>?>(nil)
            func take() -> CheckedContinuation<Void, any Error>? { continuation.withLock { $0.take() } }
        }
        let waiter = Waiter()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiter.continuation.withLock { $0 = continuation }
            Task {
                let outcome = await work.result
                waiter.take()?.resume(with: outcome)
            }
            Task {
                try? await Task.sleep(for: limit)
                guard let continuation = waiter.take() else { return }
                work.cancel()
                continuation.resume(throwing: timeout())
            }
        }
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
        let fence = fenceKey
        let removal = Task { try await client.query("DELETE FROM chat.meta WHERE key = \(fence)", logger: logger) }
        try? await Self.result(of: Task { _ = try await removal.value }, within: .seconds(1)) { CancellationError() }
        runner?.cancel()
    }

    // MARK: Opening

    /// The TLS configuration of `endpoint`'s mode (`nil`: none).
    static func tlsConfiguration(_ endpoint: PostgresEndpoint) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch endpoint.tls {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let file = endpoint.trustedCertificates { configuration.trustRoots = .file(file) }
        return configuration
    }

    static func clientTLS(_ endpoint: PostgresEndpoint) -> PostgresClient.Configuration.TLS {
        guard let configuration = tlsConfiguration(endpoint) else { return .disable }
        return endpoint.tls == .prefer ? .prefer(configuration) : .require(configuration)
    }

    /// - Throws: NIOSSL's error when the configuration cannot be used (a root certificate file
    ///   that cannot be read).
    static func connectionTLS(_ endpoint: PostgresEndpoint) throws -> PostgresConnection.Configuration.TLS {
        guard let configuration = tlsConfiguration(endpoint) else { return .disable }
        let context = try NIOSSLContext(configuration: configuration)
        return endpoint.tls == .prefer ? .prefer(context) : .require(context)
    }

    /// Connects directly (not through the pool, which would wait and retry by itself) until a
    /// connection opens, for at most ``patience``; a PostgreSQL that answers and refuses (a
    /// wrong password, a database that does not exist) ends the wait at once.
    ///
    /// - Throws: ``PostgresStoreError/unreachable(_:)`` naming the host, with the last error;
    ///   ``PostgresStoreError/refused(_:)`` with PostgreSQL's message.
    private func waitUntilReachable() async throws {
        let deadline = ContinuousClock.now + patience
        var lastError: (any Error)?
        var configuration = PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
            database: endpoint.database, tls: try Self.connectionTLS(endpoint))
        configuration.options.connectTimeout = .seconds(3)
        while ContinuousClock.now < deadline {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try await connection.close()
                return
            } catch let error as PSQLError where error.serverInfo != nil {
                throw PostgresStoreError.refused(
                    "PostgreSQL at \(endpoint.host):\(endpoint.port) refused: \(error.serverInfo?[.message] ?? "\(error.code)")")
            } catch let error as PSQLError where error.code == .sslUnsupported {
                throw PostgresStoreError.refused(
                    "PostgreSQL at \(endpoint.host):\(endpoint.port) does not offer TLS, and sslmode=\(endpoint.tls.rawValue) requires it")
            } catch {
                lastError = error
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        throw PostgresStoreError.unreachable(
            "PostgreSQL at \(endpoint.host):\(endpoint.port) did not answer within \(patience) (\(lastError.map { String(reflecting: $0) } ?? "no attempt"))")
    }

    /// Creates the schema if there is none; refuses one that is not ours or is newer.
    private func ensureSchema() async throws {
        // Decided in the transaction, thrown after it (an error thrown inside comes out wrapped).
        let refusal: String? = try await client.withTransaction(logger: logger) { connection -> String? in
            // Two nodes starting at once: one creates, the other then finds it.
            try await connection.query("SELECT pg_advisory_xact_lock(7428711901)", logger: logger)
            let exists = try await connection.query(
                "SELECT count(*) FROM pg_namespace WHERE nspname = 'chat'", logger: logger
            ).collect().first?.decode(Int.self) ?? 0
            if exists == 0 {
                try await migrate(connection, from: 0)
                let epoch = Self.randomEpoch()
                try await connection.query(
                    "INSERT INTO chat.identity(key, value) VALUES ('owner', \(Self.owner)), ('epoch', \(epoch))", logger: logger)
                return nil
            }
            let tables = try await connection.query(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'chat' AND tablename IN ('identity', 'meta')", logger: logger
            ).collect().first?.decode(Int.self) ?? 0
            var owner: String?
            if tables == 2 {
                owner = try await connection.query("SELECT value FROM chat.identity WHERE key = 'owner'", logger: logger)
                    .collect().first?.decode(String.self)
            }
            guard owner == Self.owner else {
                return "the schema 'chat' of database '\(endpoint.database)' is not a LiveChannels server's; it was left untouched"
            }
            let version = try await connection.query("SELECT value FROM chat.meta WHERE key = 'schema_version'", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            if version > Self.schemaVersion {
                return "the schema 'chat' was written by a newer version (schema \(version), this build reads up to \(Self.schemaVersion)); it was left untouched"
            }
            if version < Self.schemaVersion { try await migrate(connection, from: version) }
            return nil
        }
        if let refusal { throw PostgresStoreError.notOurs(refusal) }
    }

    private func epoch() async throws -> String {
        try await client.query("SELECT value FROM chat.identity WHERE key = 'epoch'", logger: logger)
            .collect().first?.decode(String.self) ?? ""
    }

    /// A new epoch: 16 hex digits of a random positive 63-bit number.
    static func randomEpoch() -> String {
        let hex = String(UInt64.random(in: 1...UInt64(Int64.max)), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Runs the migrations after `version` and records the version reached, in the caller's
    /// transaction (under its advisory lock: two nodes starting at once migrate once).
    private func migrate(_ connection: PostgresConnection, from version: Int) async throws {
        for step in Self.migrations[version...] {
            for statement in step { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }
        try await connection.query(
            """
            INSERT INTO chat.meta(key, value) VALUES ('schema_version', \(Self.schemaVersion))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, logger: logger)
    }

    /// The schema's migrations, step by step: the one at index N takes version N to N + 1, as
    /// the SQLite store's `user_version` migrations do. Never edit a step that has shipped; add one.
    static let migrations: [[String]] = [createVersion1]

    /// Version 1 of the schema.
    static let createVersion1 = [
        "CREATE SCHEMA chat",
        "CREATE TABLE chat.identity(key text PRIMARY KEY, value text NOT NULL)",
        "CREATE TABLE chat.meta(key text PRIMARY KEY, value bigint NOT NULL)",
        "CREATE TABLE chat.users(id text PRIMARY KEY, value bytea NOT NULL)",
        "CREATE TABLE chat.channels(id text PRIMARY KEY, info bytea NOT NULL, extras bytea)",
        "CREATE TABLE chat.members(channel text NOT NULL, user_id text NOT NULL, value bytea NOT NULL, PRIMARY KEY(channel, user_id))",
        "CREATE TABLE chat.messages(channel text NOT NULL, sequence bigint NOT NULL, value bytea NOT NULL, PRIMARY KEY(channel, sequence))",
    ]
}

/// The statement of ``PostgresServerDatabase``'s writes, prepared once per connection: a batch
/// as arrays, each `WITH` clause writing one table only if the fence advanced; the row is the
/// fence's count (0: superseded).
struct WriteStatement: PostgresPreparedStatement {
    typealias Row = Int
    static let name = "chat_write_v1"
    static let sql = """
            WITH fence AS (
                INSERT INTO chat.meta(key, value) VALUES ($1, $2)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE chat.meta.value < excluded.value
                RETURNING 1
            ), users AS (
                INSERT INTO chat.users(id, value)
                SELECT * FROM unnest($3::text[], $4::bytea[]) WHERE EXISTS (SELECT 1 FROM fence)
                ON CONFLICT (id) DO UPDATE SET value = excluded.value
            ), channels AS (
                INSERT INTO chat.channels(id, info, extras)
                SELECT id, info, CASE WHEN has THEN extras END
                FROM unnest($5::text[], $6::bytea[], $7::bytea[], $8::bool[])
                    AS r(id, info, extras, has)
                WHERE EXISTS (SELECT 1 FROM fence)
                ON CONFLICT (id) DO UPDATE SET info = excluded.info, extras = coalesce(excluded.extras, chat.channels.extras)
            ), members AS (
                INSERT INTO chat.members(channel, user_id, value)
                SELECT * FROM unnest($9::text[], $10::text[], $11::bytea[])
                WHERE EXISTS (SELECT 1 FROM fence)
                ON CONFLICT (channel, user_id) DO UPDATE SET value = excluded.value
            ), removed AS (
                DELETE FROM chat.members m USING unnest($12::text[], $13::text[]) AS r(channel, user_id)
                WHERE m.channel = r.channel AND m.user_id = r.user_id AND EXISTS (SELECT 1 FROM fence)
            ), messages AS (
                INSERT INTO chat.messages(channel, sequence, value)
                SELECT * FROM unnest($14::text[], $15::bigint[], $16::bytea[])
                WHERE EXISTS (SELECT 1 FROM fence)
                ON CONFLICT (channel, sequence) DO UPDATE SET value = excluded.value
            ), counters AS (
                INSERT INTO chat.meta(key, value)
                SELECT * FROM unnest($17::text[], $18::bigint[]) WHERE EXISTS (SELECT 1 FROM fence)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
            )
            SELECT count(*) FROM fence
            """

    let fence: String
    let number: Int
    let batch: ServerDatabaseBatch

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 18)
        bindings.append(fence)
        bindings.append(number)
        bindings.append(batch.users.map(\.userId))
        bindings.append(batch.users.map { ByteBuffer(bytes: $0.value) })
        bindings.append(batch.channels.map(\.channelId))
        bindings.append(batch.channels.map { ByteBuffer(bytes: $0.info) })
        // A channel without extras keeps its stored ones: `has` false stands for none.
        bindings.append(batch.channels.map { ByteBuffer(bytes: $0.extras ?? []) })
        bindings.append(batch.channels.map { $0.extras != nil })
        bindings.append(batch.members.map(\.key.channelId))
        bindings.append(batch.members.map(\.key.userId))
        bindings.append(batch.members.map { ByteBuffer(bytes: $0.value) })
        bindings.append(batch.removedMembers.map(\.channelId))
        bindings.append(batch.removedMembers.map(\.userId))
        bindings.append(batch.messages.map(\.channelId))
        bindings.append(batch.messages.map(\.sequence))
        bindings.append(batch.messages.map { ByteBuffer(bytes: $0.value) })
        let keys = Array(batch.counters.keys)
        bindings.append(keys)
        bindings.append(keys.map { batch.counters[$0]! })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }
}

/// Why the PostgreSQL store cannot be used.
public enum PostgresStoreError: Error, CustomStringConvertible {
    /// PostgreSQL did not answer in time (`chat-server` exits 1).
    case unreachable(String)
    /// PostgreSQL answered and refused: a wrong password, a database that does not exist
    /// (`chat-server` exits 1).
    case refused(String)
    /// The `chat` schema is not ours, or newer (`chat-server` exits 2).
    case notOurs(String)
    /// A write that ended after a newer one had committed, rolled back (its rows were older).
    case superseded(Int)

    public var description: String {
        switch self {
        case .unreachable(let reason), .refused(let reason), .notOurs(let reason): reason
        case .superseded(let number): "write \(number) was rolled back: a newer write had committed"
        }
    }
}
