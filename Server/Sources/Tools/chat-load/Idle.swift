import ArgumentParser
import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO

/// Idle connections held by a `chat-server` process, each through hello/welcome, and the
/// server's memory per connection — beside the same count of bare WebSocket connections to the
/// broadcast floor in a process of its own.
struct Idle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Idle connections held, and server memory per connection.")

    @Option(help: "Connections to open (each process here may hold at most about 19,900: its file limit).")
    var connections = 10_000
    @Option(help: "Connections opened at once.") var parallel = 64
    @Flag(help: "Run the broadcast floor as a server (used by idle itself).") var floorServer = false

    func run() async throws {
        if floorServer {
            try await withServices(BroadcastFloor().services(onRunning:)) { port in
                FileHandle.standardOutput.write(Data("listening on ws://127.0.0.1:\(port)/broadcast\n".utf8))
                while true { try await Task.sleep(for: .seconds(3_600)) }
            }
            return
        }
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let floor = try await measure(
            server: directory.appendingPathComponent("chat-load"), arguments: ["idle", "--floor-server"]
        ) { port in try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast") }
        let ours = try await measure(
            server: directory.appendingPathComponent("chat-server"), arguments: ["--dev", "--port", "0"]
        ) { port in
            try await RawClient.connect(port: port, user: "idle-\(UInt64.random(in: 0...UInt64.max))").connection
        }
        print("idle connections: \(connections)")
        print(
            "  floor (bare Hummingbird WebSocket): \(floor.held) held, \(floor.perConnection) bytes of server memory each (\(LoadStatistics.mebibytes(floor.before)) → \(LoadStatistics.mebibytes(floor.after)))"
        )
        print(
            "  chat-server (signed in, hello/welcome): \(ours.held) held, \(ours.perConnection) bytes of server memory each (\(LoadStatistics.mebibytes(ours.before)) → \(LoadStatistics.mebibytes(ours.after)))"
        )
    }

    private func measure(
        server: URL, arguments: [String], open: @escaping @Sendable (Int) async throws -> any WebSocketConnection
    ) async throws -> (held: Int, before: Int, after: Int, perConnection: Int) {
        let process = Process()
        process.executableURL = server
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CHAT_SERVER_SECRET"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        let port = try await Self.port(from: output.fileHandleForReading)
        try await Task.sleep(for: .milliseconds(300))
        let before = LoadStatistics.residentBytes(of: process.processIdentifier) ?? 0
        var held: [any WebSocketConnection] = []
        held.reserveCapacity(connections)
        var failures = 0
        while held.count < connections && failures < 100 {
            let batch = min(parallel, connections - held.count)
            let opened = await withTaskGroup(of: (any WebSocketConnection)?.self) { group in
                for _ in 0..<batch { group.addTask { try? await open(port) } }
                var opened: [any WebSocketConnection] = []
                for await connection in group { if let connection { opened.append(connection) } }
                return opened
            }
            failures += batch - opened.count
            held += opened
        }
        try await Task.sleep(for: .seconds(1))
        let after = LoadStatistics.residentBytes(of: process.processIdentifier) ?? 0
        for connection in held { await connection.close(code: 1000, reason: "") }
        return (held.count, before, after, held.isEmpty ? 0 : (after - before) / held.count)
    }

    /// Reads the port from the server's first line (`listening on ws://HOST:PORT/...`).
    private static func port(from handle: FileHandle) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while true {
                    let byte = handle.readData(ofLength: 1)
                    if byte.isEmpty || byte == Data("\n".utf8) { break }
                    line.append(byte)
                }
                let text = String(decoding: line, as: UTF8.self)
                if let match = text.firstMatch(of: /:(\d+)\//), let port = Int(match.1) {
                    continuation.resume(returning: port)
                } else {
                    continuation.resume(throwing: ChatError.unavailable("the server did not start: \(text)"))
                }
            }
        }
    }
}
