import CSQLite
import ChatAPI
import Foundation
@_spi(Persistence) import LiveChannels
import RowCoding
import TestSupport

/// `Benchmarks persistence`: the client's cache on disk — cold start from a big file, and
/// write-behind throughput and cost.
enum PersistenceBenchmark {
    static func run() async {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livechannels-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await coldStart(directory: directory)
            try await writeBehind(directory: directory)
        } catch {
            print("persistence benchmark failed: \(error)")
        }
    }

    // MARK: Cold start

    static let listQuery = ChannelListQuery(
        filter: .equal(.type, to: .community), sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20)

    /// A file holding 100,000 channels (and the first page of one list); then, per run, a new
    /// client on it: the time until that list shows its first 20 rows, against loading the
    /// whole file first.
    static func coldStart(directory: URL) async throws {
        let channelCount = 100_000
        let file = directory.appendingPathComponent("cold.sqlite")
        var generator = SeededGenerator(seed: 2026)
        let channels = (0..<channelCount).map { ClientBenchmark.randomChannel($0, using: &generator) }
        let fill = try await Harness.once {
            let transport = ScriptedTransport(userId: "me", channels: channels)
            let client = ChatClient(transport: transport, persistence: .sqlite(file))
            try await client.connect()
            for (index, channel) in channels.enumerated() { transport.update(channel, at: index) }
            await client.synchronize()
            let list = ChannelRepository(client: client).getChannels(query: listQuery)
            for await update in list.updates where update.loadingStatus == .loaded { break }
            await client.closePersistence()
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        // Baseline for the fill and the size: the same rows written in one plain SQLite transaction.
        let plainFile = directory.appendingPathComponent("cold-plain.sqlite")
        let plainFill = try plainWrites(channels, file: plainFile, rowsPerTransaction: channels.count)
        let plainSize = (try? FileManager.default.attributesOfItem(atPath: plainFile.path)[.size] as? Int) ?? 0

        var firstRows: [Double] = []
        var everything: [Double] = []
        for _ in 0..<3 {
            let clock = ContinuousClock()
            let start = clock.now
            let client = ChatClient(
                transport: ScriptedTransport(userId: "me", channels: []), persistence: .sqlite(file))
            let list = ChannelRepository(client: client).getChannels(query: listQuery)
            let rows = list.snapshots.count
            firstRows.append(Harness.seconds(clock.now - start))
            guard rows == 20, list.dataStatus == .local else {
                print("cold start showed \(rows) rows (\(list.dataStatus))")
                return
            }
            // Baseline: every row of the file loaded (and decoded) before the list could show.
            await client.flushPersistence()
            everything.append(Harness.seconds(clock.now - start))
            await client.closePersistence()
        }
        let first = firstRows.sorted()[1]
        let all = everything.sorted()[1]
        print(
            "## persistence — cold start: a file of \(channelCount / 1000)k channels (\(size / 1_048_576) MB), a new client, first 20 rows of a live list\n"
        )
        Harness.table(
            ["", "time", "ratio"],
            [
                [
                    "LiveChannels: open + list shows 20 rows (.local), rest loads behind", Harness.format(first),
                    Harness.ratio(all / first),
                ],
                ["baseline: load every row of the file first", Harness.format(all), "1.0×"],
            ])
        print(
            "\n(writing the file: \(Harness.format(fill)) for \(channelCount) channels, behind the live path, \(size / 1_048_576) MB; baseline: the same rows in one plain SQLite transaction, \(Harness.format(plainFill)), \(plainSize / 1_048_576) MB)\n"
        )
    }

    // MARK: Write-behind

    /// Events applied by a client with 10 observed live lists: with `.sqlite` (written behind)
    /// against `.inMemory` (the live-update path's cost), and the write-behind throughput
    /// against one transaction per event.
    static func writeBehind(directory: URL) async throws {
        let channelCount = 2_000
        let eventCount = 20_000
        var generator = SeededGenerator(seed: 99)
        var channels = (0..<channelCount).map { ClientBenchmark.randomChannel($0, using: &generator) }
        var updates: [(Int, Channel)] = []
        for step in 0..<eventCount {
            let index = Int.random(in: 0..<channelCount, using: &generator)
            channels[index].lastSequence += 1
            channels[index].lastMessageAt = Date(timeIntervalSince1970: 2_000_000 + Double(step))
            updates.append((index, channels[index]))
        }
        let queries = Array(ClientBenchmark.queries().prefix(10))

        /// Applies the events (and, for a file, writes them); returns (live path, until written).
        func measure(_ persistence: Persistence) async throws -> (live: Double, persisted: Double, writer: Double) {
            let transport = ScriptedTransport(userId: "me", channels: channels)
            let client = ChatClient(transport: transport, persistence: persistence)
            try await client.connect()
            let lists = queries.map { ChannelRepository(client: client).getChannels(query: $0) }
            for list in lists {
                for await update in list.updates where update.loadingStatus == .loaded { break }
            }
            await client.flushPersistence()
            let before = client.persistenceStatistics.writeTime
            let sink = Sink()
            let tokens = lists.map { $0.observe(on: .synchronous) { _, change, _ in sink.note(change?.count ?? 0, 0) } }
            let clock = ContinuousClock()
            let start = clock.now
            for (index, channel) in updates { transport.update(channel, at: index) }
            await client.synchronize()
            let live = Harness.seconds(clock.now - start)
            await client.flushPersistence()
            let persisted = Harness.seconds(clock.now - start)
            let writer = Harness.seconds(client.persistenceStatistics.writeTime - before)
            tokens.forEach { $0.invalidate() }
            await client.closePersistence()
            blackHole(sink.total)
            return (live, persisted, writer)
        }

        var memory: [Double] = []
        var disk: [(live: Double, persisted: Double, writer: Double)] = []
        // Fifteen interleaved pairs (a run is about a tenth of a second, so one pair says little:
        // the writer competes with the live path for the two cores): medians, and the spread of
        // the pairs' own ratios.
        let pairs = 15
        for run in 0..<pairs {
            memory.append(try await measure(.inMemory).live)
            let file = directory.appendingPathComponent("behind-\(run).sqlite")
            disk.append(try await measure(.sqlite(file)))
        }
        let pairRatios = zip(memory, disk.map(\.live)).map { $1 / $0 - 1 }.sorted()
        let memoryLive = memory.sorted()[pairs / 2]
        let diskLive = disk.map(\.live).sorted()[pairs / 2]
        let persisted = disk.map(\.persisted).sorted()[pairs / 2]
        let writer = disk.map(\.writer).sorted()[pairs / 2]
        let baseline = try plainWrites(updates.map(\.1), file: directory.appendingPathComponent("baseline.sqlite"))

        let events = Double(eventCount)
        print(
            "## persistence — write-behind: \(eventCount / 1000)k channel events, \(channelCount) channels, 10 observed live lists\n"
        )
        Harness.table(
            ["", "events persisted/s", "ratio"],
            [
                [
                    "LiveChannels: the writer's capacity (events per second of writer time, batched + coalesced)",
                    ClientBenchmark.rate(events / writer), Harness.ratio(baseline / writer),
                ],
                [
                    "LiveChannels: end to end (events applied to 10 lists and on disk, one core for each)",
                    ClientBenchmark.rate(events / persisted), Harness.ratio(baseline / persisted),
                ],
                [
                    "baseline: one transaction per event (same encoding, same file settings)",
                    ClientBenchmark.rate(events / baseline), "1.0×",
                ],
            ])
        print()
        Harness.table(
            ["live-update path (event → cache → 10 lists → observers)", "per event", "cost added"],
            [
                ["in memory", Harness.format(memoryLive / events), "—"],
                [
                    "with .sqlite (records the batch, never waits on disk)", Harness.format(diskLive / events),
                    String(format: "%+.1f%%", (diskLive / memoryLive - 1) * 100),
                ],
            ])
        print(
            String(
                format: "\ncost added, pair by pair (%d interleaved pairs): %+.1f%% to %+.1f%%, middle pair %+.1f%%\n",
                pairs, pairRatios.first! * 100, pairRatios.last! * 100, pairRatios[pairs / 2] * 100))
    }

    /// The plain writer: each event's channel encoded and written with the event sequence, on a
    /// file with the cache's settings (WAL, `synchronous = NORMAL`), `rowsPerTransaction` rows
    /// per transaction (1: the naive writer, a transaction per event; all: a bulk load).
    static func plainWrites(_ channels: [Channel], file: URL, rowsPerTransaction: Int = 1) throws -> Double {
        var db: OpaquePointer?
        guard sqlite3_open(file.path, &db) == SQLITE_OK, let db else { throw ChatError.unavailable("open") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) { sqlite3_exec(db, sql, nil, nil, nil) }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        exec(
            """
            CREATE TABLE channels(key TEXT PRIMARY KEY, version INTEGER, scope TEXT, ordinal INTEGER, pinned INTEGER, size INTEGER, value BLOB);
            CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER)
            """)
        var upsert: OpaquePointer?
        var sequence: OpaquePointer?
        sqlite3_prepare_v2(
            db, "INSERT OR REPLACE INTO channels VALUES(?1, ?2, '', 0, ?3, ?4, ?5)", -1, &upsert, nil)
        sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES('sequence', ?1)", -1, &sequence, nil)
        defer {
            sqlite3_finalize(upsert)
            sqlite3_finalize(sequence)
        }
        // The store's own row encoding, into one reused buffer, as the store does.
        var row = RowWriter()
        let start = ContinuousClock.now
        for (index, channel) in channels.enumerated() {
            if index % rowsPerTransaction == 0 { exec("BEGIN IMMEDIATE") }
            row.removeAll()
            try channel.encodeRow(to: &row)
            sqlite3_reset(upsert)
            sqlite3_bind_text(upsert, 1, channel.channelId, -1, csqlite_transient())
            sqlite3_bind_int64(upsert, 2, sqlite3_int64(channel.version))
            sqlite3_bind_int64(upsert, 3, channel.currentUserMembership == .member ? 1 : 0)
            sqlite3_bind_int64(upsert, 4, sqlite3_int64(row.bytes.count))
            _ = row.bytes.withUnsafeBytes {
                sqlite3_bind_blob(upsert, 5, $0.baseAddress, Int32($0.count), csqlite_transient())
            }
            sqlite3_step(upsert)
            sqlite3_reset(sequence)
            sqlite3_bind_int64(sequence, 1, sqlite3_int64(index + 1))
            sqlite3_step(sequence)
            if (index + 1) % rowsPerTransaction == 0 || index == channels.count - 1 { exec("COMMIT") }
        }
        return Harness.seconds(ContinuousClock.now - start)
    }
}
