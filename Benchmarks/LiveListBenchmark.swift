import CSQLite
import ChatAPI
import Foundation
@_spi(Benchmarks) import LiveChannels
import TestSupport

/// `Benchmarks lists`: the cost of one change to one live list, by the size of its window,
/// against re-running an indexed SQLite query for the same list on the same data (what an app
/// that observes SQLite gets: every change re-runs the query and reads the rows).
enum LiveListBenchmark {
    static let channelCount = 100_000
    static let windows =
        ProcessInfo.processInfo.environment["LIST_WINDOWS"].map { $0.split(separator: ",").compactMap { Int($0) } }
        ?? [20, 1_000, 10_000, 100_000]
    static let updateCount = Int(ProcessInfo.processInfo.environment["LIST_UPDATES"] ?? "") ?? 20_000
    static let query = ChannelListQuery(
        filter: .all, sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20)

    static func run() async {
        do {
            var rows: [[String]] = []
            for window in windows {
                let ours = try await liveList(window: window)
                // LIST_BASELINE=0 skips SQLite (for profiling ours): then no baseline and no ratio.
                let baseline =
                    ProcessInfo.processInfo.environment["LIST_BASELINE"] == "0" ? nil : try sqliteQuery(window: window)
                func ratio(_ ours: Double) -> String { baseline.map { Harness.ratio($0 / ours) } ?? "not measured" }
                rows.append([
                    "\(window)", "\(ours.shown)", Harness.format(ours.applied), Harness.format(ours.delivered),
                    Harness.format(ours.awaited), baseline.map(Harness.format) ?? "not measured (LIST_BASELINE=0)",
                    ratio(ours.applied), ratio(ours.delivered), ratio(ours.awaited),
                ])
            }
            print(
                "## lists — one change to one live list over \(channelCount / 1000)k cached channels, by window, against re-running an indexed SQLite query\n"
            )
            Harness.table(
                [
                    "window", "items shown", "LiveChannels: a batch of events applied → list → observer (throughput)",
                    "the same, each event delivered by the transport (throughput)",
                    "one update at a time, the writer waiting for the observer",
                    "SQLite: UPDATE + query the window into channels (the writer waits by construction)",
                    "ratio (batch)", "ratio (delivered)", "ratio (one at a time)",
                ],
                rows)
            print(
                "\n(per change; the observer is synchronous and reads `count`. SQLite: a WAL file as the client cache uses, an index that answers the query, the window read into `Channel` values. One at a time: 5,000 updates, each delivered by the transport and awaited until the observer saw its change.)\n"
            )
        } catch {
            print("lists benchmark failed: \(error)")
        }
    }

    /// 100,000 public channels (so that a window can reach every one).
    static func channels() -> [Channel] {
        var generator = SeededGenerator(seed: 12)
        return (0..<channelCount).map {
            var channel = ClientBenchmark.randomChannel($0, using: &generator)
            channel.type = .community
            return channel
        }
    }

    /// Which channels get the messages: random channels of the window (each moves to the top).
    static func script(in window: [Int], count: Int) -> [Int] {
        var generator = SeededGenerator(seed: 34)
        return (0..<count).map { _ in window[Int.random(in: 0..<window.count, using: &generator)] }
    }

    /// A list sorted by last message whose window grew to `window` items the way such windows
    /// grow (channels that get a message enter it); then more messages to channels in it, once
    /// applied by the client's sync engine in one go and once delivered one event at a time by
    /// the transport. Returns the time per change until the synchronous observer has seen it.
    static func liveList(window: Int) async throws -> (applied: Double, delivered: Double, awaited: Double, shown: Int)
    {
        var channels = channels()
        let transport = ScriptedTransport(userId: "me", channels: channels)
        let client = ChatClient(transport: transport)
        try await client.connect()
        await client.applyEvents(channels.indices.map { transport.stamp(channels[$0], at: $0) })
        let list = ChannelRepository(client: client).getChannels(query: query)
        for await update in list.updates where update.loadingStatus == .loaded { break }

        // Grow the window: channels get newer messages than anything listed.
        var listed = Set(list.snapshots.map(\.channelId))
        var members: [Int] = channels.indices.filter { listed.contains(channels[$0].channelId) }
        var stamp = 2_000_000.0
        var growth: [EventEnvelope] = []
        for index in channels.indices where members.count < window && !listed.contains(channels[index].channelId) {
            stamp += 1
            channels[index].lastMessageAt = Date(timeIntervalSince1970: stamp)
            growth.append(transport.stamp(channels[index], at: index))
            listed.insert(channels[index].channelId)
            members.append(index)
        }
        await client.applyEvents(growth)
        await client.synchronize()

        let sink = Sink()
        let token = list.observe(on: .synchronous) { collection, change, _ in
            sink.note(change?.count ?? 0, collection.count)
        }
        let indices = script(in: members, count: updateCount)
        func events() -> [EventEnvelope] {
            indices.map { index in
                stamp += 1
                channels[index].lastMessageAt = Date(timeIntervalSince1970: stamp)
                return transport.stamp(channels[index], at: index)
            }
        }
        let batch = events()
        let applied = await Harness.once { await client.applyEvents(batch) }
        let delivered = await Harness.once {
            for index in indices {
                stamp += 1
                channels[index].lastMessageAt = Date(timeIntervalSince1970: stamp)
                transport.update(channels[index], at: index)
            }
            await client.synchronize()
        }
        token.invalidate()
        // Per update, the writer waiting for the observer (the shape of GRDB's ValueObservation
        // test): deliver one event, wait until the observer has seen the change it makes, then
        // the next. Each update pays the hops from the writer to the engine and back.
        let (seen, see) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
        var changes = seen.makeAsyncIterator()
        let awaitedToken = list.observe(on: .synchronous) { collection, change, _ in
            if change != nil { see.yield(collection.count) }
        }
        let awaitedIndices = Array(indices.prefix(5_000))
        let awaited = await Harness.once {
            for index in awaitedIndices {
                stamp += 1
                channels[index].lastMessageAt = Date(timeIntervalSince1970: stamp)
                transport.update(channels[index], at: index)
                _ = await changes.next()
            }
        }
        let shown = list.count
        awaitedToken.invalidate()
        blackHole(sink.total)
        return (
            applied / Double(indices.count), delivered / Double(indices.count), awaited / Double(awaitedIndices.count),
            shown
        )
    }

    /// The same channels in an indexed SQLite table (a WAL file, `synchronous = NORMAL`, as the
    /// client's cache uses). Each change updates the row in its own transaction and re-runs the
    /// window's query, reading every row it returns into a `Channel` (the scalar fields a list
    /// row shows; metadata is left out, which favours SQLite).
    static func sqliteQuery(window: Int) throws -> Double {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lists-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        }
        var db: OpaquePointer?
        guard sqlite3_open(file.path, &db) == SQLITE_OK, let db else { throw ChatError.unavailable("sqlite open") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) { sqlite3_exec(db, sql, nil, nil, nil) }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        exec(
            """
            CREATE TABLE channels(id TEXT PRIMARY KEY, type TEXT, display_name TEXT, tags TEXT, member_count INTEGER,
                created_at REAL, last_message_at REAL, last_sequence INTEGER, membership INTEGER);
            CREATE INDEX by_last_message ON channels(last_message_at DESC, id)
            """)
        var channels = channels()
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO channels VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", -1, &insert, nil)
        exec("BEGIN")
        for channel in channels {
            sqlite3_reset(insert)
            sqlite3_bind_text(insert, 1, channel.channelId, -1, csqlite_transient())
            sqlite3_bind_text(insert, 2, channel.type.rawValue, -1, csqlite_transient())
            sqlite3_bind_text(insert, 3, channel.displayName ?? "", -1, csqlite_transient())
            sqlite3_bind_text(insert, 4, channel.tags.joined(separator: ","), -1, csqlite_transient())
            sqlite3_bind_int64(insert, 5, sqlite3_int64(channel.memberCount))
            sqlite3_bind_double(insert, 6, channel.createdAt.timeIntervalSince1970)
            sqlite3_bind_double(insert, 7, channel.lastMessageAt?.timeIntervalSince1970 ?? 0)
            sqlite3_bind_int64(insert, 8, sqlite3_int64(channel.lastSequence))
            sqlite3_bind_int64(insert, 9, channel.currentUserMembership == .member ? 1 : 0)
            sqlite3_step(insert)
        }
        exec("COMMIT")
        sqlite3_finalize(insert)

        // The same kind of window as the live list's: the `window` most recent channels.
        let byRecency = channels.indices.sorted {
            (channels[$0].lastMessageAt ?? .distantPast) > (channels[$1].lastMessageAt ?? .distantPast)
        }
        let members = Array(byRecency.prefix(window))
        var update: OpaquePointer?
        var select: OpaquePointer?
        sqlite3_prepare_v2(
            db, "UPDATE channels SET last_message_at = ?1, last_sequence = ?2 WHERE id = ?3", -1, &update, nil)
        sqlite3_prepare_v2(
            db,
            "SELECT id, type, display_name, tags, member_count, created_at, last_message_at, last_sequence, membership FROM channels ORDER BY last_message_at DESC, id LIMIT ?1",
            -1, &select, nil)
        defer {
            sqlite3_finalize(update)
            sqlite3_finalize(select)
        }
        func text(_ column: Int32) -> String { String(cString: sqlite3_column_text(select, column)) }
        let sample = max(10, min(updateCount, 2_000_000 / window))
        let indices = script(in: members, count: sample)
        var stamp = 3_000_000.0
        var total = 0
        let seconds = Harness.once {
            for index in indices {
                stamp += 1
                channels[index].lastMessageAt = Date(timeIntervalSince1970: stamp)
                exec("BEGIN")
                sqlite3_reset(update)
                sqlite3_bind_double(update, 1, stamp)
                sqlite3_bind_int64(update, 2, sqlite3_int64(channels[index].lastSequence))
                sqlite3_bind_text(update, 3, channels[index].channelId, -1, csqlite_transient())
                sqlite3_step(update)
                exec("COMMIT")
                sqlite3_reset(select)
                sqlite3_bind_int64(select, 1, sqlite3_int64(window))
                var rows: [Channel] = []
                rows.reserveCapacity(window)
                while sqlite3_step(select) == SQLITE_ROW {
                    rows.append(
                        Channel(
                            channelId: text(0), type: ChannelType(rawValue: text(1)) ?? .community,
                            tags: text(3).split(separator: ",").map(String.init), displayName: text(2),
                            memberCount: Int(sqlite3_column_int64(select, 4)),
                            createdAt: Date(timeIntervalSince1970: sqlite3_column_double(select, 5)),
                            lastMessageAt: Date(timeIntervalSince1970: sqlite3_column_double(select, 6)),
                            lastSequence: Int(sqlite3_column_int64(select, 7)),
                            currentUserMembership: sqlite3_column_int64(select, 8) == 1 ? .member : .none))
                }
                total &+= rows.count
            }
        }
        blackHole(total)
        return seconds / Double(indices.count)
    }
}
