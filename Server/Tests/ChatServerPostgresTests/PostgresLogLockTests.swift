import ChatServer
import ChatServerPostgres
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import Testing
import ServerTestSupport

/// The change log's lock cannot be held by a node that stops: every session of a node carries
/// time limits (``PostgresServerDatabase/sessionLimits``), so PostgreSQL ends a transaction whose
/// client went silent, and its locks with it — proved here on a real PostgreSQL by a session that
/// takes the lock and then says nothing, as a node frozen in the middle of an append.
@Suite(.timeLimit(.minutes(2))) struct PostgresLogLockTests {
    @Test func aSessionThatStallsHoldingTheLogsLockIsEndedAndTheOthersAppend() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let endpoint = try PostgresEndpoint(url: cluster.url(name))
        let database = PostgresServerDatabase(endpoint)
        try await database.prepare()
        let stalled = try await PostgresConnection.connect(
            configuration: try PostgresServerDatabase.sessionConfiguration(endpoint), id: 9,
            logger: Logger(label: "stalled"))
        try await stalled.query("BEGIN", logger: Logger(label: "stalled"))
        try await stalled.query(
            "UPDATE chat.log_head SET position = position WHERE id = 1", logger: Logger(label: "stalled"))
        // Another node appends: it waits for the lock, which PostgreSQL frees by ending the silent
        // session well within the append's own time limit.
        let head = try await database.append([[9, 9]], node: "other")
        #expect(head == 1)
        let entries = try await database.entries(after: 0, limit: 10)
        #expect(entries.map(\.bytes) == [[9, 9]])
        // Stamped by PostgreSQL's clock: the time every node applies it at.
        let stamped = try #require(entries.first?.writtenAt)
        #expect(abs(stamped.timeIntervalSinceNow) < 60)
        // The stalled session is gone, and its transaction with it.
        let ended = try await database.client.query(
            "SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'", logger: Logger(label: "t")
        ).collect().first?.decode(Int.self)
        #expect(ended == 0)
        // PostgreSQL ended its session; the client still closes its end (a connection released
        // unclosed is a programming error to PostgresNIO).
        try? await stalled.close()
        await database.close()
    }

    @Test func appendsNumberTheirEntriesInTurnAndWakeTheOtherNodes() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let endpoint = try PostgresEndpoint(url: cluster.url(try cluster.createDatabase()))
        let first = PostgresServerDatabase(endpoint)
        try await first.prepare()
        let second = PostgresServerDatabase(endpoint)
        try await second.prepare()
        // A third node listens; its stream says so once it listens.
        let listener = PostgresServerDatabase(endpoint)
        var wakeUps = listener.wakeUps().makeAsyncIterator()
        _ = await wakeUps.next()
        // Two nodes append at once (one statement each): positions 1…5, each append's entries
        // together and in its order, each answered with its last position.
        async let fromFirst = first.append([[1], [2], [3]], node: "a")
        async let fromSecond = second.append([[4], [5]], node: "b")
        let heads = try await [fromFirst, fromSecond]
        let entries = try await first.entries(after: 0, limit: 10)
        #expect(entries.map(\.position) == [1, 2, 3, 4, 5])
        let bytes = entries.map(\.bytes)
        if heads == [3, 5] {
            #expect(bytes == [[1], [2], [3], [4], [5]])
        } else {
            #expect(heads == [5, 2], "each append answers its last position")
            #expect(bytes == [[4], [5], [1], [2], [3]])
        }
        #expect(entries.allSatisfy { $0.writtenAt != nil }, "stamped by PostgreSQL's clock")
        #expect(try await first.head() == 5)
        // The other node hears of them without polling: the notification came with the commit.
        _ = await wakeUps.next()
        await listener.close()
        await second.close()
        await first.close()
    }

    @Test func aNodeIdsLeaseIsOneProcessAtATimeAndCountsIncarnations() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let endpoint = try PostgresEndpoint(url: cluster.url(try cluster.createDatabase()))
        let first = PostgresServerDatabase(endpoint)
        try await first.prepare()
        let incarnation = try await first.lease(node: "n0")
        #expect(try await first.lease(node: "n0") == incarnation, "asked again: the same lease")
        let second = PostgresServerDatabase(endpoint)
        await #expect(throws: ServerNodeInUse(node: "n0")) { _ = try await second.lease(node: "n0") }
        let third = PostgresServerDatabase(endpoint)
        #expect(try await third.lease(node: "n1") == 1, "another id is free")
        await third.close()
        await first.close()
        #expect(try await second.lease(node: "n0") == incarnation + 1, "free once its holder closed")
        await second.close()
    }

    /// A new database of `cluster`, prepared, with `node`'s lease held.
    private static func leasedDatabase(node: String, on cluster: PostgresCluster) async throws
        -> PostgresServerDatabase
    {
        let database = PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(try cluster.createDatabase())))
        try await database.prepare()
        _ = try await database.lease(node: node)
        return database
    }

    /// A node that closes while PostgreSQL does not answer at all (its processes stopped: the
    /// sockets stay open, nothing is reset) still closes: giving its lease back and removing its
    /// fence wait a second each, and the session's end frees the lease anyway. (Giving the lease
    /// back once waited for an answer for good: `chat-server` then never ended after SIGTERM.)
    @Test func aNodeClosesWhilePostgreSQLDoesNotAnswer() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let database = try await Self.leasedDatabase(node: "n0", on: cluster)
        try cluster.freeze()
        defer { try? cluster.thaw() }
        let (outcome, report) = AsyncStream.makeStream(of: Bool.self)
        Task {
            await database.close()
            report.yield(true)
        }
        Task {
            try? await Task.sleep(for: .seconds(30))
            report.yield(false)
        }
        var first = outcome.makeAsyncIterator()
        let closed = await first.next()
        #expect(closed == true, "close() had not returned 30 s after PostgreSQL stopped answering")
    }

    @Test func aBeatRemovesWhatEveryLiveNodeAppliedAndTheTablesHold() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let endpoint = try PostgresEndpoint(url: cluster.url(try cluster.createDatabase()))
        let database = PostgresServerDatabase(endpoint)
        try await database.prepare()
        let head = try await database.append((1...30).map { [UInt8($0)] }, node: "a")
        #expect(head == 30)
        // Node b has applied 20 only: nothing above it goes, and nothing the tables lack.
        _ = try await database.beat(node: "b", applied: 20, silentFor: 15)
        var beat = try await database.beat(node: "a", applied: 30, silentFor: 15)
        #expect(beat.keptEntries == 30, "the tables hold nothing yet")
        try await database.writeSnapshot(node: "a") { _ in
            ServerLogSnapshot(batch: ServerDatabaseBatch(), through: 25)
        }
        beat = try await database.beat(node: "a", applied: 30, silentFor: 15)
        #expect(beat.keptEntries == 10, "positions 21 to 30 stay for node b")
        #expect(try await database.entries(after: 0, limit: 100).first?.position == 21, "a gap for whoever needs 1")
        try await database.writeSnapshot(node: "a") { _ in
            ServerLogSnapshot(batch: ServerDatabaseBatch(), through: 30)
        }
        _ = try await database.beat(node: "b", applied: 30, silentFor: 15)
        beat = try await database.beat(node: "a", applied: 30, silentFor: 15)
        #expect(beat.keptEntries == 1, "never the newest")
        #expect(try await database.entries(after: 0, limit: 100).map(\.position) == [30])
        await database.close()
    }

    /// A node's snapshot is a transaction of its own on the snapshot's row: while another node
    /// holds that row (writing its snapshot), appends still commit; the waiting snapshot then
    /// starts from where the other left the tables.
    @Test func aSnapshotsWriteHoldsNoAppendBackAndSnapshotsTakeTurns() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let endpoint = try PostgresEndpoint(url: cluster.url(try cluster.createDatabase()))
        let database = PostgresServerDatabase(endpoint)
        try await database.prepare()
        let logger = Logger(label: "other")
        let other = try await PostgresConnection.connect(
            configuration: try PostgresServerDatabase.sessionConfiguration(endpoint), id: 9, logger: logger)
        // Held as long as the test needs it, however slow the machine (a node's sessions end a
        // transaction idle for 2 s).
        try await other.query("SET idle_in_transaction_session_timeout = 0", logger: logger)
        try await other.query("BEGIN", logger: logger)
        try await other.query("SELECT value FROM chat.meta WHERE key = 'log_snapshot' FOR UPDATE", logger: logger)
        // Another node is writing its snapshot: appends go on.
        #expect(try await database.append([[1], [2]], node: "a") == 2)
        #expect(try await database.append([[3]], node: "b") == 3)
        // This node's snapshot waits for the other's lock, and is asked from where it left them.
        let asked = NIOLockedValueBox<[Int]>([])
        let write = Task {
            try await database.writeSnapshot(node: "a") { stored in
                asked.withLockedValue { $0.append(stored) }
                return ServerLogSnapshot(batch: ServerDatabaseBatch(), through: 3)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(asked.withLockedValue { $0 }.isEmpty, "asked while the other node held the snapshot's row")
        try await other.query("UPDATE chat.meta SET value = 2 WHERE key = 'log_snapshot'", logger: logger)
        try await other.query("COMMIT", logger: logger)
        try await write.value
        #expect(asked.withLockedValue { $0 } == [2])
        #expect(try await database.open().counters["logPosition"] == 3)
        // A snapshot not above the stored one changes nothing: the position only moves forward.
        try await database.writeSnapshot(node: "b") { _ in
            ServerLogSnapshot(batch: ServerDatabaseBatch(), through: 1)
        }
        let counters = try await database.open().counters
        #expect(counters["logPosition"] == 3)
        #expect(counters["log_snapshot"] == nil, "the snapshot's row is no counter")
        try? await other.close()
        await database.close()
    }

    /// Schema 5 moved the snapshot's position from `chat.log_head` to `chat.meta`: a database of
    /// schema 4 keeps its position through the upgrade.
    @Test func aSchemaFourDatabaseKeepsItsSnapshotsPositionThroughTheUpgrade() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let endpoint = try PostgresEndpoint(url: cluster.url(try cluster.createDatabase()))
        let first = PostgresServerDatabase(endpoint)
        try await first.prepare()
        _ = try await first.append((1...9).map { [UInt8($0)] }, node: "a")
        // As schema 4 left it: the position in the head row, none in `chat.meta`, no shared values.
        for statement in [
            "DROP TABLE chat.shared_values",
            "ALTER TABLE chat.log_head ADD COLUMN snapshot bigint NOT NULL DEFAULT 0",
            "UPDATE chat.log_head SET snapshot = 7",
            "DELETE FROM chat.meta WHERE key = 'log_snapshot'",
            "UPDATE chat.meta SET value = 4 WHERE key = 'schema_version'",
        ] {
            try await first.client.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "t"))
        }
        await first.close()
        let upgraded = PostgresServerDatabase(endpoint)
        try await upgraded.prepare()
        #expect(try await upgraded.open().counters["logPosition"] == 7)
        let columns = try await upgraded.client.query(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'chat' AND table_name = 'log_head'",
            logger: Logger(label: "t")
        ).collect().first?.decode(Int.self)
        #expect(columns == 2, "the head row keeps its id and position only")
        // Schema 6's table came with the upgrade.
        let stored = try await upgraded.storeSharedValue(
            "v", for: "k", until: Date().addingTimeInterval(60), replacing: nil, now: Date())
        #expect(stored.value == "v")
        await upgraded.close()
    }
}
