import ArgumentParser
import Foundation
import LiveChannels
import LiveChannelsNIO

/// `chat-load idle-worker`: one process's share of a large idle run (`chat-load cluster`): a
/// process holds at most about 19,900 connections (its file limit), so 100,000 take several.
/// Opens `--connections` connections spread round-robin over `--ports` — signed in with
/// hello/welcome, or bare WebSockets to the broadcast floor with `--bare` — prints
/// `held N failed F`, holds them until its standard input closes, then closes them and exits.
struct IdleWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle-worker", abstract: "Holds idle connections for chat-load cluster.",
        shouldDisplay: false)

    @Option(help: "Ports to connect to, comma-separated (round-robin).") var ports: String
    @Option(help: "Connections to open.") var connections: Int
    @Option(help: "Connections opened at once.") var parallel = 32
    @Option(help: "A prefix for the users' ids (unique per worker).") var prefix = "w"
    @Flag(help: "Bare WebSockets to the broadcast floor's /broadcast.") var bare = false

    func run() async throws {
        let ports = self.ports.split(separator: ",").compactMap { Int($0) }
        guard !ports.isEmpty else { throw ValidationError("--ports names no port") }
        let prefix = prefix
        let bare = bare
        let held = await Self.open(connections, parallel: parallel) { index in
            let port = ports[index % ports.count]
            if bare { return try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast") }
            return try await RawClient.connect(port: port, user: "\(prefix)-\(index)").connection
        }
        FileHandle.standardOutput.write(Data("held \(held.count) failed \(connections - held.count)\n".utf8))
        // Hold until the parent closes our input.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                _ = FileHandle.standardInput.readDataToEndOfFile()
                continuation.resume()
            }
        }
        for connection in held { await connection.close(code: 1000, reason: "") }
    }

    /// Opens `count` connections, `parallel` at a time (`open(index)` for index 0, 1, …), and
    /// returns those that opened; stops early after 100 failures.
    static func open(
        _ count: Int, parallel: Int, _ open: @escaping @Sendable (Int) async throws -> any WebSocketConnection
    ) async -> [any WebSocketConnection] {
        var held: [any WebSocketConnection] = []
        held.reserveCapacity(count)
        var next = 0
        var failures = 0
        while next < count && failures < 100 {
            let batch = next..<min(next + parallel, count)
            let opened = await withTaskGroup(of: (any WebSocketConnection)?.self) { group in
                for index in batch { group.addTask { try? await open(index) } }
                var opened: [any WebSocketConnection] = []
                for await connection in group { if let connection { opened.append(connection) } }
                return opened
            }
            failures += batch.count - opened.count
            held += opened
            next = batch.upperBound
        }
        return held
    }
}
