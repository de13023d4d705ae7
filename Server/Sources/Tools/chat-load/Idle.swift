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
            try await withServices(FloorServer().services(onRunning:)) { port in
                FileHandle.standardOutput.write(Data("listening on ws://127.0.0.1:\(port)/broadcast\n".utf8))
                while true { try await Task.sleep(for: .seconds(3_600)) }
            }
            return
        }
        let floor = try await measure(
            server: ServerProcess.product("chat-load"), arguments: ["idle", "--floor-server"]
        ) { port in try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast") }
        // The breakdown: the gateway's own part (upgraded, no hello yet: the frame queue, the
        // heartbeat, the observers), then the session, the engine's connection and the user.
        let chatServer = ServerProcess.product("chat-server")
        let arguments = ["--dev", "--port", "0", "--max-devices", "\(connections + 1)"]
        let upgraded = try await measure(server: chatServer, arguments: arguments) { port in
            try await NIOWebSocketConnector().connect(
                WebSocketRequest(
                    url: URL(string: "ws://127.0.0.1:\(port)/v1/connect?device=d\(UInt64.random(in: 0...UInt64.max))")!,
                    headers: ["Authorization": "Bearer dev:idle"], pingInterval: .seconds(600)))
        }
        let ours = try await measure(server: chatServer, arguments: arguments) { port in
            try await RawClient.connect(port: port, user: "idle-\(UInt64.random(in: 0...UInt64.max))").connection
        }
        print("idle connections: \(connections)")
        print(
            "  floor (bare Hummingbird WebSocket): \(floor.held) held, \(floor.perConnection) bytes of server memory each (\(LoadStatistics.mebibytes(floor.before)) → \(LoadStatistics.mebibytes(floor.after)))"
        )
        print(
            "  chat-server (signed in, hello/welcome): \(ours.held) held, \(ours.perConnection) bytes of server memory each (\(LoadStatistics.mebibytes(ours.before)) → \(LoadStatistics.mebibytes(ours.after)))"
        )
        print("  breakdown, bytes per connection:")
        print("    the stack (the floor's connection)              \(floor.perConnection)")
        print("    + the gateway (token checked, upgraded, no hello) \(upgraded.perConnection - floor.perConnection)")
        print("    + session, engine connection, user (hello/welcome) \(ours.perConnection - upgraded.perConnection)")
    }

    private func measure(
        server: URL, arguments: [String], open: @escaping @Sendable (Int) async throws -> any WebSocketConnection
    ) async throws -> (held: Int, before: Int, after: Int, perConnection: Int) {
        let process = try await ServerProcess(server, arguments)
        defer { process.stop() }
        let port = process.port
        try await Task.sleep(for: .milliseconds(300))
        let before = process.residentBytes
        let held = await IdleWorker.open(connections, parallel: parallel) { _ in try await open(port) }
        try await Task.sleep(for: .seconds(1))
        let after = process.residentBytes
        for connection in held { await connection.close(code: 1000, reason: "") }
        return (held.count, before, after, held.isEmpty ? 0 : (after - before) / held.count)
    }
}
