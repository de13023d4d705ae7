import ChatServer
import Foundation
import Logging
import NIOCore
import NIOConcurrencyHelpers
import PostgresNIO

/// The change log of a cluster (``ServerChangeLog``) in PostgreSQL.
///
/// - `chat.log(position, node, entry)`: the entries. An append is one statement,
///   ``AppendStatement``: it numbers its entries by moving the single row of `chat.log_head`
///   forward, inserts them, and notifies `chat_log` (sent at its commit; the payload is the head
///   position). It holds that row's lock until it commits, and nothing else: entries commit in
///   position order, without holes, so a reader's `position > cursor` never skips one. Nodes
///   listen on a connection of their own, reconnecting when it drops; a lost notification costs
///   latency only (nodes poll).
/// - A node's snapshot (its rows, and the position they are at in `chat.meta`'s `log_snapshot`)
///   is a transaction of its own, ``writeSnapshot(node:_:)``, holding the lock of that row only:
///   the tables are always the state at `log_snapshot`, and appends never wait for a snapshot.
/// - `chat.nodes(id, seen_at, applied)`: heartbeats, by the database's clock, with how far each
///   node has applied; each beat also removes entries nobody needs any more (a bounded log).
extension PostgresServerDatabase {
    static let notificationChannel = "chat_log"
    /// The row of `chat.meta` that holds the position the tables are at (the snapshot's), and
    /// whose lock a snapshot's write holds.
    static let snapshotKey = "log_snapshot"
    /// Between the channel ids of `chat.connections.reading` (ids are printable ASCII).
    static let readingSeparator = "\u{1F}"

    public func append(_ entries: [[UInt8]], node: String) async throws -> Int {
        guard !entries.isEmpty else { return try await head() }
        let statement = AppendStatement(node: node, entries: entries)
        let work = Task { () throws -> Int in
            var head: Int?
            for try await position in try await self.client.execute(statement, logger: self.logger) { head = position }
            guard let head else { throw PostgresStoreError.notOurs("the change log's head row is missing") }
            return head
        }
        return try await withinWriteTimeout(work, didNot: "commit")
    }

    /// A transaction of its own that locks the snapshot's row of `chat.meta` (`log_snapshot`),
    /// never the log's head: appends go on while a node writes its snapshot, and two nodes'
    /// snapshots are written one after the other, each from the position the other left.
    public func writeSnapshot(
        node: String, _ snapshot: @escaping @Sendable (_ storedThrough: Int) throws -> ServerLogSnapshot?
    ) async throws {
        // The rows are made once the lock is held, from the position it guards.
        let work = Task { () throws -> Void in
            try await self.client.withTransaction(logger: self.logger) { connection in
                let row = try await connection.query(
                    "SELECT value FROM chat.meta WHERE key = \(Self.snapshotKey) FOR UPDATE", logger: self.logger
                ).collect().first
                guard let stored = try row?.decode(Int.self) else {
                    throw PostgresStoreError.notOurs("the change log's snapshot row is missing")
                }
                if let write = try snapshot(stored), write.through > stored {
                    try await self.writeSnapshot(write, on: connection)
                }
            }
        }
        try await withinWriteTimeout(work, didNot: "commit")
    }

    /// Writes a node's snapshot rows in the caller's transaction.
    private func writeSnapshot(_ write: ServerLogSnapshot, on connection: PostgresConnection) async throws {
        let batch = write.batch
        // The fence is the snapshot's position: it only moves forward.
        for try await _ in try await connection.execute(
            WriteStatement(fence: Self.snapshotKey, number: write.through, batch: batch), logger: logger)
        {}
        if !batch.connections.isEmpty {
            let rows = batch.connections
            try await connection.query(
                """
                INSERT INTO chat.connections(user_id, device_id, node, attached_at, reading)
                SELECT * FROM unnest(\(rows.map(\.device.userId))::text[], \(rows.map(\.device.deviceId))::text[],
                    \(rows.map(\.node))::text[], \(rows.map(\.attachedAt))::bigint[],
                    \(rows.map { $0.reading.joined(separator: Self.readingSeparator) })::text[])
                ON CONFLICT (user_id, device_id) DO UPDATE
                SET node = excluded.node, attached_at = excluded.attached_at, reading = excluded.reading
                """, logger: logger)
        }
        if !batch.removedConnections.isEmpty {
            let keys = batch.removedConnections
            try await connection.query(
                """
                DELETE FROM chat.connections c
                USING unnest(\(keys.map(\.userId))::text[], \(keys.map(\.deviceId))::text[]) AS r(user_id, device_id)
                WHERE c.user_id = r.user_id AND c.device_id = r.device_id
                """, logger: logger)
        }
        if !batch.deviceEvents.isEmpty {
            let rows = batch.deviceEvents
            try await connection.query(
                """
                INSERT INTO chat.device_events(user_id, device_id, last_sequence)
                SELECT * FROM unnest(\(rows.map(\.device.userId))::text[], \(rows.map(\.device.deviceId))::text[],
                    \(rows.map(\.lastSequence))::bigint[])
                ON CONFLICT (user_id, device_id) DO UPDATE SET last_sequence = excluded.last_sequence
                """, logger: logger)
        }
    }

    /// Bounded like a write: a query on a connection PostgreSQL dropped under it can wait for
    /// good, and the node's reader must go on (it tries again at the next wake-up or poll).
    public func entries(after position: Int, limit: Int) async throws -> [ServerLogEntry] {
        let work = Task { () throws -> [ServerLogEntry] in
            var entries: [ServerLogEntry] = []
            for try await (position, entry, writtenAt) in try await self.client.query(
                """
                SELECT position, entry, written_at FROM chat.log WHERE position > \(position)
                ORDER BY position LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int, ByteBuffer, Double?).self) {
                entries.append(
                    ServerLogEntry(
                        position: position, bytes: Array(entry.readableBytesView),
                        writtenAt: writtenAt.map(Date.init(timeIntervalSince1970:))))
            }
            return entries
        }
        return try await withinWriteTimeout(work)
    }

    public func head() async throws -> Int {
        let work = Task { () throws -> Int in
            let rows = try await self.client.query(
                "SELECT position FROM chat.log_head WHERE id = 1", logger: self.logger
            ).decode(Int.self)
            for try await position in rows { return position }
            throw PostgresStoreError.notOurs("the change log's head row is missing")
        }
        return try await withinWriteTimeout(work)
    }

    /// Listens on a connection of its own, reconnecting (every 250 ms while PostgreSQL is away)
    /// when it drops — and signals after every reconnect too, since what was notified meanwhile
    /// is lost. Ends with the task that reads it.
    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let endpoint = endpoint
        let logger = logger
        let listener = Task {
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: try Self.sessionConfiguration(endpoint), id: 1, logger: logger)
                    defer { Task { try? await connection.close() } }
                    try await connection.listen(on: Self.notificationChannel) { notifications in
                        continuation.yield()
                        for try await _ in notifications { continuation.yield() }
                    }
                } catch {
                    logger.debug("the change log's listener dropped: \(error)")
                }
                continuation.yield()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }

    public func beat(node: String, applied: Int, silentFor: Double) async throws -> ServerLogBeat {
        try checkLease(of: node)
        let work = Task { try await self.beatNow(node: node, applied: applied, silentFor: silentFor) }
        return try await withinWriteTimeout(work)
    }

    /// At most how many entries one beat removes (a node beats every 5 s: 4,000 entries a second
    /// per node, well above what a cluster appends).
    static let trimBatch = 20_000

    private func beatNow(node: String, applied: Int, silentFor: Double) async throws -> ServerLogBeat {
        try await client.query(
            """
            INSERT INTO chat.nodes(id, seen_at, applied) VALUES (\(node), now(), \(applied))
            ON CONFLICT (id) DO UPDATE SET seen_at = now(), applied = excluded.applied
            """, logger: logger)
        var silent: [String] = []
        var live: [String: Int] = [:]
        for try await (id, isSilent, position) in try await client.query(
            "SELECT id, seen_at < now() - make_interval(secs => \(silentFor)), applied FROM chat.nodes ORDER BY id",
            logger: logger
        ).decode((String, Bool, Int).self) {
            if !isSilent {
                live[id] = position
            } else if id != node {
                silent.append(id)
            }
        }
        // What every live node applied and the tables hold, never the newest entry (so that a
        // node needing a removed one finds a gap), oldest first, a batch at a time. A plain
        // delete: appends insert above it and readers never wait for it.
        try await client.query(
            """
            DELETE FROM chat.log WHERE position <= (SELECT least(
                (SELECT value FROM chat.meta WHERE key = \(Self.snapshotKey)), h.position - 1,
                (SELECT min(applied) FROM chat.nodes WHERE seen_at >= now() - make_interval(secs => \(silentFor))),
                (SELECT coalesce(min(position), 0) FROM chat.log) + \(Self.trimBatch) - 1)
              FROM chat.log_head h WHERE h.id = 1)
            """, logger: logger)
        let kept =
            try await client.query(
                """
                SELECT h.position - coalesce((SELECT min(position) FROM chat.log), h.position + 1) + 1
                FROM chat.log_head h WHERE h.id = 1
                """, logger: logger
            ).collect().first?.decode(Int.self) ?? 0
        return ServerLogBeat(silentNodes: silent, keptEntries: kept, liveNodes: live)
    }

    public func forget(node: String) async throws {
        try await client.query("DELETE FROM chat.nodes WHERE id = \(node)", logger: logger)
    }

    /// `work`'s value within ``writeTimeout``, or ``PostgresStoreError/unreachable(_:)`` saying
    /// PostgreSQL did not `answer` (or `commit`) in time.
    func withinWriteTimeout<Value: Sendable>(
        _ work: Task<Value, any Error>, didNot what: String = "answer"
    ) async throws -> Value {
        try await Self.value(of: work, within: Self.writeTimeout) {
            PostgresStoreError.unreachable(
                "PostgreSQL at \(self.endpoint.host):\(self.endpoint.port) did not \(what) within \(Self.writeTimeout)")
        }
    }

    /// The value of `work`, or `timeout()` thrown after `limit` (`work` then cancelled):
    /// ``TimeLimit``'s bound, with the store's error.
    static func value<Value: Sendable>(
        of work: Task<Value, any Error>, within limit: Duration, timeout: @escaping @Sendable () -> any Error
    ) async throws -> Value {
        guard let result = await TimeLimit.result(of: work, within: limit) else { throw timeout() }
        return try result.get()
    }
}
