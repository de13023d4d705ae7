import CSQLite
import ChatAPI
import ChatServer
import Foundation

/// `Benchmarks storage`: the server's state on disk (`ServerStorage.sqlite`).
///
/// - Acknowledged sends per second: 20,000 console sends over 100 channels, one sender at a
///   time and 64 concurrent senders (group commit), `.sqlite` beside `.inMemory` (the
///   baseline) in the same run. A send returns once its change is committed.
/// - Reopen: a file of 100,000 channels and 1,000,000 messages (10 per channel), the time from
///   `ChatServer(storage:)` to serving a request; and the file's size per message.
enum StorageBenchmark {
    static func run() async {
        do {
            if ProcessInfo.processInfo.environment["STORAGE_BENCH_FILE"] == nil { try await sends() }
            try await reopen(channels: 100_000, messagesPerChannel: 10)
        } catch {
            print("storage benchmark failed: \(error)")
        }
    }

    static func temporaryFile() -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storage-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("server.sqlite")
    }

    static func sends() async throws {
        print("## storage — acknowledged sends per second (20,000 sends, 100 channels)\n")
        var rows: [[String]] = []
        for concurrency in [1, 64] {
            var rates: [Double] = []
            for storage in ["inMemory", "sqlite"] {
                let file = temporaryFile()
                defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
                let server = try ChatServer(storage: storage == "sqlite" ? .sqlite(file) : .inMemory)
                for number in 0..<100 {
                    try await server.createChannel(type: .community, channelId: "c\(number)", userIds: ["ann"])
                }
                let total = 20_000
                let seconds = try await Harness.once {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for worker in 0..<concurrency {
                            group.addTask {
                                for number in stride(from: worker, to: total, by: concurrency) {
                                    try await server.sendMessage(
                                        as: "ann", channelId: "c\(number % 100)", text: "message \(number)")
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                await server.close()
                rates.append(Double(total) / seconds)
            }
            rows.append([
                "\(concurrency) sender\(concurrency == 1 ? "" : "s")", "\(Int(rates[0]))", "\(Int(rates[1]))",
                Harness.ratio(rates[1] / rates[0]),
            ])
        }
        Harness.table(["senders", "inMemory sends/s", "sqlite sends/s", "sqlite / inMemory"], rows)
    }

    static func reopen(channels: Int, messagesPerChannel: Int) async throws {
        print("## storage — reopen \(channels) channels, \(channels * messagesPerChannel) messages\n")
        // STORAGE_BENCH_FILE=PATH keeps the file (and reuses it when it exists) for profiling.
        let kept = ProcessInfo.processInfo.environment["STORAGE_BENCH_FILE"].map { URL(fileURLWithPath: $0) }
        let file = kept ?? temporaryFile()
        defer { if kept == nil { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) } }
        let reuse = kept.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        let writing: Double? =
            reuse
            ? nil : try await write(channels: channels, messagesPerChannel: messagesPerChannel, storage: .sqlite(file))
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        var reopened: ChatServer?
        let opening = try await Harness.once {
            reopened = try ChatServer(storage: .sqlite(file))
            let transport = reopened!.connection(userId: "u1")
            _ = try await transport.connect(resumingAfter: nil)
            _ = try await transport.send(.getChannel(channelId: "c1"))
        }
        await reopened?.close()
        // Baselines, the same run: the same writes into an in-memory server; every row of the
        // file read with plain SQLite (no decoding, no indexes); the messages' own bytes.
        let inMemory = try await write(channels: channels, messagesPerChannel: messagesPerChannel, storage: .inMemory)
        let scanStart = ContinuousClock.now
        blackHole(try readEveryRow(of: file))
        let scan = Harness.seconds(ContinuousClock.now - scanStart)
        var payload = 0
        for number in 0..<channels {
            for message in 0..<messagesPerChannel {
                payload +=
                    "message \(message) of channel \(number)".utf8.count + "c\(number)".utf8.count
                    + "u\(number % 1_000)".utf8.count
            }
        }
        let messages = max(1, channels * messagesPerChannel)
        Harness.table(
            ["", "ours", "baseline"],
            [
                [
                    "written in (64 senders)", writing.map(Harness.format) ?? "not measured (a kept file reused)",
                    "the same into .inMemory: \(Harness.format(inMemory))",
                ],
                [
                    "reopen to serving", Harness.format(opening),
                    "every row read with plain SQLite: \(Harness.format(scan))",
                ],
                [
                    "file, bytes per message", "\(bytes / 1_048_576) MiB, \(bytes / messages)",
                    "the messages' text and ids: \(payload / messages)",
                ],
            ])
    }

    /// Reads every row of every table of the server's file with plain SQLite, touching each
    /// column: the floor of restoring it. Returns the bytes read.
    private static func readEveryRow(of file: URL) throws -> Int {
        var db: OpaquePointer?
        guard sqlite3_open_v2(file.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw ChatError.unavailable("cannot open \(file.path)")
        }
        defer { sqlite3_close(db) }
        var total = 0
        for table in ["users", "channels", "members", "messages", "meta"] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, "SELECT * FROM \(table)", -1, &statement, nil) == SQLITE_OK else { continue }
            defer { sqlite3_finalize(statement) }
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 0..<sqlite3_column_count(statement) {
                    total += Int(sqlite3_column_bytes(statement, column))
                }
            }
        }
        return total
    }

    /// Writes the file from a server that is gone when this returns (so the reopen that
    /// follows starts in a process as lean as a restarted one). Returns the seconds it took.
    private static func write(channels: Int, messagesPerChannel: Int, storage: ServerStorage) async throws -> Double {
        let server = try ChatServer(storage: storage)
        let seconds = try await Harness.once {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        for number in stride(from: worker, to: channels, by: 64) {
                            try await server.createChannel(
                                type: .community, channelId: "c\(number)", userIds: ["u\(number % 1_000)"])
                            for message in 0..<messagesPerChannel {
                                try await server.sendMessage(
                                    as: "u\(number % 1_000)", channelId: "c\(number)",
                                    text: "message \(message) of channel \(number)")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        await server.close()
        return seconds
    }
}
