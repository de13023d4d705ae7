import ChatServer
import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// Opening: TLS as libpq's `sslmode`, waiting for PostgreSQL, creating or migrating the `chat`
/// schema under an advisory lock, the history's epoch.
extension PostgresServerDatabase {
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
    func waitUntilReachable() async throws {
        let deadline = ContinuousClock.now + patience
        var lastError: (any Error)?
        var configuration = PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
            database: endpoint.database, tls: try Self.connectionTLS(endpoint))
        configuration.options.connectTimeout = .seconds(3)
        while ContinuousClock.now < deadline {
            // Stopped while waiting (Ctrl-C): no more tries.
            try Task.checkCancellation()
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 0, logger: logger)
                try await connection.close()
                return
            } catch let error as PSQLError where error.serverInfo != nil {
                throw PostgresStoreError.refused(
                    "PostgreSQL at \(endpoint.host):\(endpoint.port) refused: \(error.serverInfo?[.message] ?? "\(error.code)")"
                )
            } catch let error as PSQLError where error.code == .sslUnsupported {
                throw PostgresStoreError.refused(
                    "PostgreSQL at \(endpoint.host):\(endpoint.port) does not offer TLS, and sslmode=\(endpoint.tls.rawValue) requires it"
                )
            } catch {
                lastError = error
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        throw PostgresStoreError.unreachable(
            "PostgreSQL at \(endpoint.host):\(endpoint.port) did not answer within \(patience) (\(lastError.map(Self.summary) ?? "no attempt"))"
        )
    }

    /// Why a connection failed, in an operator's words (not the client library's internals).
    static func summary(of error: any Error) -> String {
        let text = String(reflecting: error)
        if text.contains("Connection refused") || text.contains("errno: 111") {
            return "connection refused: nothing listens there"
        }
        if text.localizedCaseInsensitiveContains("timeout") || text.localizedCaseInsensitiveContains("timed out") {
            return "no answer"
        }
        if text.contains("Name or service not known") || text.contains("nodename nor servname") {
            return "the host name is not known"
        }
        return String(text.prefix(200))
    }

    /// Creates the schema if there is none; refuses one that is not ours or is newer.
    func ensureSchema() async throws {
        // Decided in the transaction, thrown after it (an error thrown inside comes out wrapped).
        let refusal: String? = try await client.withTransaction(logger: logger) { connection -> String? in
            // A migration takes as long as it takes (``sessionLimits``).
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            // Two nodes starting at once: one creates, the other then finds it.
            try await connection.query("SELECT pg_advisory_xact_lock(7428711901)", logger: logger)
            let exists =
                try await connection.query(
                    "SELECT count(*) FROM pg_namespace WHERE nspname = 'chat'", logger: logger
                ).collect().first?.decode(Int.self) ?? 0
            if exists == 0 {
                try await migrate(connection, from: 0)
                let epoch = Self.randomEpoch()
                try await connection.query(
                    "INSERT INTO chat.identity(key, value) VALUES ('owner', \(Self.owner)), ('epoch', \(epoch))",
                    logger: logger)
                return nil
            }
            let tables =
                try await connection.query(
                    "SELECT count(*) FROM pg_tables WHERE schemaname = 'chat' AND tablename IN ('identity', 'meta')",
                    logger: logger
                ).collect().first?.decode(Int.self) ?? 0
            var owner: String?
            if tables == 2 {
                owner = try await connection.query(
                    "SELECT value FROM chat.identity WHERE key = 'owner'", logger: logger
                )
                .collect().first?.decode(String.self)
            }
            guard owner == Self.owner else {
                return
                    "the schema 'chat' of database '\(endpoint.database)' is not a LiveChannels server's; it was left untouched"
            }
            let version =
                try await connection.query("SELECT value FROM chat.meta WHERE key = 'schema_version'", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            if version > Self.schemaVersion {
                return
                    "the schema 'chat' was written by a newer version (schema \(version), this build reads up to \(Self.schemaVersion)); it was left untouched"
            }
            if version < Self.schemaVersion { try await migrate(connection, from: version) }
            return nil
        }
        if let refusal { throw PostgresStoreError.notOurs(refusal) }
    }

    func epoch() async throws -> String {
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
    func migrate(_ connection: PostgresConnection, from version: Int) async throws {
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
    static let migrations: [[String]] = [
        createVersion1, createVersion2, createVersion3, createVersion4, createVersion5, createVersion6,
    ]

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

    /// Version 2: the change log of a cluster (``ServerChangeLog``), its head (the lock every
    /// append holds from numbering to commit, and the position the tables are at), the devices
    /// connected to each node, and the nodes' heartbeats.
    static let createVersion2 = [
        "CREATE TABLE chat.log(position bigint PRIMARY KEY, node text NOT NULL, entry bytea NOT NULL)",
        "CREATE TABLE chat.log_head(id int PRIMARY KEY CHECK (id = 1), position bigint NOT NULL, snapshot bigint NOT NULL)",
        "INSERT INTO chat.log_head(id, position, snapshot) VALUES (1, 0, 0)",
        "CREATE TABLE chat.connections(user_id text NOT NULL, device_id text NOT NULL, node text NOT NULL, attached_at bigint NOT NULL, reading text NOT NULL DEFAULT '', PRIMARY KEY(user_id, device_id))",
        "CREATE TABLE chat.nodes(id text PRIMARY KEY, seen_at timestamptz NOT NULL)",
    ]

    /// Version 3: each node id's incarnation, counted by its lease (``lease(node:)``; never
    /// deleted, so that a run's incarnation is above every earlier run's), and how far each node
    /// has applied the log (the log is trimmed below what every live node applied).
    static let createVersion3 = [
        "CREATE TABLE chat.node_leases(id text PRIMARY KEY, incarnation bigint NOT NULL)",
        "ALTER TABLE chat.nodes ADD COLUMN applied bigint NOT NULL DEFAULT 0",
    ]

    /// Version 4: each device's event count (``ServerRow/DeviceEvents``), so that a node restored
    /// from the tables numbers a device's next event as the running nodes do; and when each entry
    /// was written, by PostgreSQL's clock (``ServerLogEntry/writtenAt``: the cluster's time; the
    /// entries of earlier versions have none).
    static let createVersion4 = [
        "CREATE TABLE chat.device_events(user_id text NOT NULL, device_id text NOT NULL, last_sequence bigint NOT NULL, PRIMARY KEY(user_id, device_id))",
        "ALTER TABLE chat.log ADD COLUMN written_at double precision",
    ]

    /// Version 5: the position the tables are at moves from `chat.log_head` to `chat.meta`'s
    /// `log_snapshot` (the fence its writes already kept), so that a node writes its snapshot in
    /// a transaction of its own, locking that row and never the log's head
    /// (``writeSnapshot(node:_:)``). A node of an earlier version fails on the dropped column
    /// rather than read the tables at a wrong position: stop every node before the upgrade.
    static let createVersion5 = [
        """
        INSERT INTO chat.meta(key, value) SELECT 'log_snapshot', snapshot FROM chat.log_head WHERE id = 1
        ON CONFLICT (key) DO UPDATE SET value = greatest(chat.meta.value, excluded.value)
        """,
        "ALTER TABLE chat.log_head DROP COLUMN snapshot",
    ]

    /// Version 6: the values the nodes share that are not chat state (``sharedValue(for:now:)``):
    /// the APNs provider token they all send, the console sessions signed out. Each is kept
    /// until `until_ms` (milliseconds since 1970).
    static let createVersion6 = [
        "CREATE TABLE chat.shared_values(key text PRIMARY KEY, value text NOT NULL, until_ms bigint NOT NULL)"
    ]
}
