import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing

/// `chat-server` processes started as an operator starts them, for the tests.
package enum ChatServerProcess {
    package static let executable = Subprocess.product("chat-server")

    /// Starts `chat-server --port 0 --dev` with `arguments` and returns it with its port once it
    /// listens.
    package static func start(_ arguments: [String]) async throws -> (Subprocess, Int) {
        let server = try Subprocess(executable, ["--port", "0", "--dev"] + arguments, environment: [:])
        var lines = server.lines.makeAsyncIterator()
        let first = try #require(
            await lines.next(), "no first line from chat-server \(arguments): \(server.standardError)")
        let port = try #require(
            first.wholeMatch(of: /listening on ws:\/\/127\.0\.0\.1:(\d+)\/v1\/connect/).flatMap { Int($0.1) })
        return (server, port)
    }

    /// A random port for a server that a test stops and starts again at the same address:
    /// 20,000–32,767, below the ephemeral range (32,768–60,999 on Linux, 49,152–65,535 on
    /// macOS) from which the kernel gives listeners on port 0 and outgoing connections theirs.
    /// A port taken from that range may be given to another test's server or client the moment
    /// it is free, and the server started there again cannot listen (or, worse, its clients
    /// reach the other test's). The caller still tries another if this one is taken.
    package static func fixedPort() -> Int { Int.random(in: 20_000..<32_768) }

    /// Starts `chat-server --dev` with `arguments` on a port of `fixedPort()`, another one if
    /// it is taken (five tries), and returns it with that port once it listens.
    package static func startOnFixedPort(_ arguments: [String]) async throws -> (Subprocess, Int) {
        var reason = ""
        for _ in 0..<5 {
            let port = fixedPort()
            let server = try Subprocess(executable, ["--port", "\(port)", "--dev"] + arguments, environment: [:])
            var lines = server.lines.makeAsyncIterator()
            let first = await lines.next()
            if first?.hasPrefix("listening on") == true { return (server, port) }
            reason = "\(first ?? "no first line"): \(server.standardError)"
        }
        throw ServerDidNotStart(reason: "chat-server \(arguments) did not listen on five ports: \(reason)")
    }

    /// Why `startOnFixedPort` gave up.
    package struct ServerDidNotStart: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// `count` nodes of a cluster on the PostgreSQL database at `url`, named n0, n1, …, each
    /// started with `arguments(index)` too (n0 with `--admin boss`); their processes and ports,
    /// in order. The caller terminates them.
    package static func startNodes(
        _ count: Int, postgres url: String, arguments: (Int) -> [String] = { _ in [] }
    ) async throws -> [(process: Subprocess, port: Int)] {
        var nodes: [(process: Subprocess, port: Int)] = []
        for node in 0..<count {
            let (process, port) = try await start(
                ["--postgres", url, "--node-id", "n\(node)"] + (node == 0 ? ["--admin", "boss"] : [])
                    + arguments(node))
            nodes.append((process, port))
        }
        return nodes
    }

    /// A transport for `user` (a dev token) to the server on `port`.
    package static func transport(_ user: String, port: Int) -> WebSocketTransport {
        WebSocketTransport(
            url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!, userId: user, token: { "dev:\(user)" },
            connector: NIOWebSocketConnector())
    }

    /// Two runs of `chat-server` on the same `storage` arguments, each stopped with SIGTERM: a
    /// channel and a message the first run acknowledged, the second serves.
    package static func expectStateKeptAcrossARestart(_ storage: [String]) async throws {
        for run in 0..<2 {
            let (server, port) = try await start(storage)
            let transport = transport("alice", port: port)
            _ = try await transport.connect(resumingAfter: nil)
            if run == 0 {
                _ = try await transport.send(
                    .createChannel(ChannelDraft(type: .community, channelId: "kept", userIds: [])))
                _ = try await transport.send(.sendMessage(MessageDraft(channelId: "kept", text: "still here")))
            } else {
                let page = try await transport.send(.queryMessages(MessagePageQuery(channelId: "kept"))).response
                    .messagesValue
                #expect(page?.messages.map(\.text) == ["still here"], "\(storage)")
            }
            await transport.disconnect()
            server.process.terminate()  // SIGTERM
            #expect(await server.exitStatus() == 0, "run \(run) on \(storage): \(server.standardError)")
        }
    }
}
