import Dispatch
import Foundation
import GRDB

// GRDB's ValueObservation of a channel list, per update, the writer waiting for the observer:
// 100,000 channels in a WAL database with an index that answers the query; the observation
// fetches the window (`ORDER BY last_message_at DESC, id LIMIT window`) into values after every
// committed write; the writer updates one listed channel (it moves to the top) and waits until
// the observer got the new window, then the next. The same shape as the one-at-a-time row of
// `Benchmarks lists` (the root package), which `scripts/compare-grdb` runs beside it.

/// The scalar fields a list row shows (as the root benchmark's SQLite baseline reads).
struct ChannelRow: FetchableRecord, Equatable, Sendable {
    var id: String
    var type: String
    var displayName: String
    var tags: [String]
    var memberCount: Int
    var createdAt: Date
    var lastMessageAt: Date
    var lastSequence: Int
    var isMember: Bool

    init(row: Row) throws {
        id = row[0]
        type = row[1]
        displayName = row[2]
        tags = (row[3] as String).split(separator: ",").map(String.init)
        memberCount = row[4]
        createdAt = Date(timeIntervalSince1970: row[5])
        lastMessageAt = Date(timeIntervalSince1970: row[6])
        lastSequence = row[7]
        isMember = (row[8] as Int) == 1
    }
}

/// A deterministic generator (a 64-bit LCG, Knuth's constants, its state's high bits folded
/// into the low ones), so every run measures the same data.
struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state ^ (state >> 29)
    }
}

let channelCount = 100_000
let windows =
    ProcessInfo.processInfo.environment["LIST_WINDOWS"].map { $0.split(separator: ",").compactMap { Int($0) } }
    ?? [20, 200, 2_000, 8_000, 100_000]

func measure(window: Int) async throws -> (perUpdate: Double, baseline: Double, updates: Int) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("grdb-\(UUID().uuidString).sqlite").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: path, configuration: configuration)  // WAL, as GRDB's pools are
    var generator = Generator(state: 12)
    let rows: [[DatabaseValue]] = (0..<channelCount).map { index in
        [
            String(format: "ch%06d", index).databaseValue, "community".databaseValue,
            "Channel \(Int.random(in: 0..<1_000_000, using: &generator))".databaseValue,
            "tag\(Int.random(in: 0..<8, using: &generator))".databaseValue,
            Int.random(in: 1..<500, using: &generator).databaseValue,
            Double(index).databaseValue, Double.random(in: 0..<1_000_000, using: &generator).databaseValue,
            Int.random(in: 0..<50, using: &generator).databaseValue,
            (Int.random(in: 0..<50, using: &generator) == 0 ? 1 : 0).databaseValue,
        ]
    }
    try await pool.write { db in
        try db.execute(
            sql: """
                CREATE TABLE channels(id TEXT PRIMARY KEY, type TEXT, display_name TEXT, tags TEXT, member_count INTEGER,
                    created_at REAL, last_message_at REAL, last_sequence INTEGER, membership INTEGER);
                CREATE INDEX by_last_message ON channels(last_message_at DESC, id)
                """)
        let insert = try db.makeStatement(sql: "INSERT INTO channels VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for row in rows { try insert.execute(arguments: StatementArguments(row)) }
    }
    // The channels the window shows, to update (each moves to the top and stays listed).
    let listed = try await pool.read { db in
        try String.fetchAll(
            db, sql: "SELECT id FROM channels ORDER BY last_message_at DESC, id LIMIT ?", arguments: [window])
    }
    // The observer's values, in order: the writer waits for the next one after each write.
    let (delivered, deliver) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
    var values = delivered.makeAsyncIterator()
    // `tracking`, not `trackingConstantRegion`: the constant-region form measured slower here
    // (see README), and this baseline should be GRDB at its best.
    let observation = ValueObservation.tracking { db in
        try ChannelRow.fetchAll(
            db,
            sql:
                "SELECT id, type, display_name, tags, member_count, created_at, last_message_at, last_sequence, membership FROM channels ORDER BY last_message_at DESC, id LIMIT ?",
            arguments: [window])
    }
    let queue = DispatchQueue(label: "observer")
    let cancellable = observation.start(
        in: pool, scheduling: .async(onQueue: queue), onError: { error in print("observation failed: \(error)") },
        onChange: { rows in
            precondition(rows.count == window)
            deliver.yield(rows.count)
        })
    _ = await values.next()  // the initial value
    let updates = max(10, min(5_000, 2_000_000 / window))
    var stamp = 3_000_000.0
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<updates {
        stamp += 1
        let id = listed[Int.random(in: 0..<listed.count, using: &generator)]
        let value = stamp
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE channels SET last_message_at = ?, last_sequence = last_sequence + 1 WHERE id = ?",
                arguments: [value, id])
        }
        _ = await values.next()
    }
    let elapsed = clock.now - start
    cancellable.cancel()
    // Baseline, the same run: the same write, then the same fetch on the writer's connection,
    // with no observation (what ValueObservation does for each write, without its scheduling).
    let plainStart = clock.now
    for _ in 0..<updates {
        stamp += 1
        let id = listed[Int.random(in: 0..<listed.count, using: &generator)]
        let value = stamp
        let count = try await pool.write { db in
            try db.execute(
                sql: "UPDATE channels SET last_message_at = ?, last_sequence = last_sequence + 1 WHERE id = ?",
                arguments: [value, id])
            return try ChannelRow.fetchAll(
                db,
                sql:
                    "SELECT id, type, display_name, tags, member_count, created_at, last_message_at, last_sequence, membership FROM channels ORDER BY last_message_at DESC, id LIMIT ?",
                arguments: [window]
            ).count
        }
        precondition(count == window)
    }
    let plain = clock.now - plainStart
    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    return (seconds(elapsed) / Double(updates), seconds(plain) / Double(updates), updates)
}

print(
    "## GRDB \(7) ValueObservation — one update at a time, the writer waiting for the observer, over \(channelCount / 1_000)k channels\n"
)
print("| window | updates | per update | baseline: the same write + fetch, no observation | observation's cost |")
print("|---|---|---|---|---|")
func format(_ seconds: Double) -> String {
    seconds >= 1e-3 ? String(format: "%.2f ms", seconds * 1e3) : String(format: "%.2f µs", seconds * 1e6)
}
for window in windows {
    let result = try await measure(window: window)
    print(
        "| \(window) | \(result.updates) | \(format(result.perUpdate)) | \(format(result.baseline)) | \(String(format: "%.1f×", result.perUpdate / result.baseline)) |"
    )
}
