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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storage-bench-\(UUID().uuidString)")
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
                                    try await server.sendMessage(as: "ann", channelId: "c\(number % 100)", text: "message \(number)")
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
        let writing: Double? = reuse ? nil : try await write(channels: channels, messagesPerChannel: messagesPerChannel, to: file)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        var reopened: ChatServer?
        let opening = try await Harness.once {
            reopened = try ChatServer(storage: .sqlite(file))
            let transport = reopened!.connection(userId: "u1")
            _ = try await transport.connect(resumingAfter: nil)
            _ = try await transport.send(.getChannel(channelId: "c1"))
        }
        await reopened?.close()
        Harness.table(
            ["written in (64 senders)", "reopen to serving", "file", "bytes per message"],
            [[writing.map(Harness.format) ?? "not measured (a kept file reused)", Harness.format(opening), "\(bytes / 1_048_576) MiB", "\(bytes / max(1, channels * messagesPerChannel))"]])
    }

    /// Writes the file from a server that is gone when this returns (so the reopen that
    /// follows starts in a process as lean as a restarted one). Returns the seconds it took.
    private static func write(channels: Int, messagesPerChannel: Int, to file: URL) async throws -> Double {
        let server = try ChatServer(storage: .sqlite(file))
        let seconds = try await Harness.once {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        for number in stride(from: worker, to: channels, by: 64) {
                            try await server.createChannel(type: .community, channelId: "c\(number)", userIds: ["u\(number % 1_000)"])
                            for message in 0..<messagesPerChannel {
                                try await server.sendMessage(
                                    as: "u\(number % 1_000)", channelId: "c\(number)", text: "message \(message) of channel \(number)")
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
