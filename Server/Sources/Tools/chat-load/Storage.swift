import ArgumentParser
import ChatAPI
import ChatServer
import ChatServerPostgres
import Foundation
import Logging

/// `chat-load storage --postgres URL`: the server's state in PostgreSQL beside SQLite and
/// memory, in the same run (`scripts/bench-storage` starts a throw-away PostgreSQL for it).
///
/// - Acknowledged sends per second: 20,000 console sends over 100 channels, one sender and 64
///   concurrent senders (group commit); a send returns once its change is committed.
/// - Restart: 100,000 channels and 1,000,000 messages written (64 senders), then the time from
///   opening the server to serving a request, PostgreSQL beside SQLite; and the bytes per
///   message each takes on disk.
struct Storage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Durable sends and restarts: PostgreSQL beside SQLite and memory.")

    @Option(
        help:
            "An empty PostgreSQL database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (its schema chat is replaced)."
    )
    var postgres: String
    @Option(help: "Channels of the restart run.") var channels = 100_000
    @Option(help: "Messages per channel of the restart run.") var messagesPerChannel = 10
    @Option(help: "Reopens of each store in the restart run; the median is reported.") var reopens = 3
    @Flag(help: "Only the restart run.") var restartOnly = false

    func run() async throws {
        let endpoint = try PostgresEndpoint(url: postgres)
        if !restartOnly { try await sends(endpoint) }
        try await restart(endpoint)
    }

    /// A store of each kind, empty: memory, a new SQLite file, PostgreSQL with its `chat` schema
    /// dropped first.
    private enum Kind: String, CaseIterable {
        case memory, sqlite, postgres
    }

    private func open(_ kind: Kind, _ endpoint: PostgresEndpoint, file: URL, fresh: Bool) async throws -> ChatServer {
        switch kind {
        case .memory: return ChatServer()
        case .sqlite: return try ChatServer(storage: .sqlite(file))
        case .postgres:
            var logger = Logger(label: "chat-load")
            logger.logLevel = .error
            if fresh { try await Self.dropSchema(endpoint) }
            return try await ChatServer(
                opening: .cluster(PostgresServerDatabase(endpoint, logger: logger), nodeId: "n0"))
        }
    }

    static func dropSchema(_ endpoint: PostgresEndpoint) async throws {
        var logger = Logger(label: "chat-load")
        logger.logLevel = .error
        let database = PostgresServerDatabase(endpoint, logger: logger)
        try await database.client.query("DROP SCHEMA IF EXISTS chat CASCADE", logger: logger)
        await database.close()
    }

    private func sends(_ endpoint: PostgresEndpoint) async throws {
        print("## storage — acknowledged sends per second (20,000 sends, 100 channels)\n")
        print("| senders | in memory | SQLite | PostgreSQL | PostgreSQL / SQLite |")
        print("|---|---|---|---|---|")
        for concurrency in [1, 64] {
            var rates: [Kind: Double] = [:]
            for kind in Kind.allCases {
                let file = Self.temporaryFile()
                defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
                let server = try await open(kind, endpoint, file: file, fresh: true)
                for number in 0..<100 {
                    try await server.createChannel(type: .community, channelId: "c\(number)", userIds: ["ann"])
                }
                let total = 20_000
                let start = ContinuousClock.now
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
                rates[kind] = Double(total) / Self.seconds(ContinuousClock.now - start)
                await server.close()
            }
            let memory = rates[.memory]!, sqlite = rates[.sqlite]!, postgres = rates[.postgres]!
            print(
                "| \(concurrency) | \(Int(memory)) | \(Int(sqlite)) | \(Int(postgres)) | \(String(format: "%.2f×", postgres / sqlite)) |"
            )
        }
        print("")
    }

    private func restart(_ endpoint: PostgresEndpoint) async throws {
        let messages = channels * messagesPerChannel
        print("## storage — restart with \(channels) channels, \(messages) messages\n")
        print("| | SQLite | PostgreSQL | PostgreSQL / SQLite |")
        print("|---|---|---|---|")
        var written: [Kind: Double] = [:]
        var reopened: [Kind: Double] = [:]
        var bytes: [Kind: Int] = [:]
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        for kind in [Kind.sqlite, .postgres] {
            let server = try await open(kind, endpoint, file: file, fresh: true)
            let start = ContinuousClock.now
            try await write(into: server)
            written[kind] = Self.seconds(ContinuousClock.now - start)
            await server.close()
            var times: [Double] = []
            for _ in 0..<max(1, reopens) {
                let opening = ContinuousClock.now
                let again = try await open(kind, endpoint, file: file, fresh: false)
                let transport = again.connection(userId: "u1")
                _ = try await transport.connect(resumingAfter: nil)
                _ = try await transport.send(.getChannel(channelId: "c1"))
                times.append(Self.seconds(ContinuousClock.now - opening))
                await transport.disconnect()
                await again.close()
            }
            reopened[kind] = times.sorted()[times.count / 2]
            bytes[kind] = kind == .sqlite ? Self.fileSize(file) : try await Self.schemaSize(endpoint)
        }
        func row(_ name: String, _ values: [Kind: Double], _ format: (Double) -> String) {
            let sqlite = values[.sqlite]!, postgres = values[.postgres]!
            print(
                "| \(name) | \(format(sqlite)) | \(format(postgres)) | \(String(format: "%.2f×", postgres / sqlite)) |")
        }
        row("written (64 senders)", written) { String(format: "%.1f s", $0) }
        row("reopen to serving (median of \(max(1, reopens)))", reopened) { String(format: "%.2f s", $0) }
        row("bytes per message on disk", bytes.mapValues { Double($0) / Double(messages) }) {
            String(format: "%.0f", $0)
        }
        print("")
    }

    /// 64 senders create the channels and send their messages.
    private func write(into server: ChatServer) async throws {
        let channels = channels, messagesPerChannel = messagesPerChannel
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

    /// The bytes of the `chat` schema's tables with their indexes and TOAST.
    private static func schemaSize(_ endpoint: PostgresEndpoint) async throws -> Int {
        var logger = Logger(label: "chat-load")
        logger.logLevel = .error
        let database = PostgresServerDatabase(endpoint, logger: logger)
        defer { Task { await database.close() } }
        let rows = try await database.client.query(
            "SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'chat' AND c.relkind = 'r'",
            logger: logger
        ).collect()
        return try rows.first?.decode(Int.self) ?? 0
    }

    private static func fileSize(_ file: URL) -> Int {
        // The database file and its write-ahead log.
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: file.path + suffix)[.size] as? Int) ?? 0)
        }
    }

    private static func temporaryFile() -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chat-load-storage-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("server.sqlite")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
