import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Heartbeats both ways, against a real `chat-server` process that stops (SIGSTOP): a client
/// notices a dead server within two ping intervals, and the server closes with 4002 (and drops)
/// a client that stopped answering its pings, never one that answers.
// 15 minutes: its flood test waits its turn among the heavy tests (HeavyTestGate).
@Suite(.timeLimit(.minutes(15))) struct HeartbeatTests {
    private let chatServer = Subprocess.product("chat-server")

    private func start(_ arguments: [String]) async throws -> (Subprocess, Int) {
        let server = try Subprocess(
            chatServer, ["--dev", "--port", "0"] + arguments, environment: ["CHAT_SERVER_SECRET": ""])
        var lines = server.lines.makeAsyncIterator()
        let port = try #require(await lines.next()?.firstMatch(of: /:(\d+)\//).flatMap { Int($0.1) })
        return (server, port)
    }

    @Test func aClientNoticesADeadServerWithinTwoIntervals() async throws {
        let (server, port) = try await start([])
        defer { kill(server.process.processIdentifier, SIGCONT) }
        let transport = WebSocketTransport(
            url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!, userId: "alice", token: { "dev:alice" },
            connector: NIOWebSocketConnector(), pingInterval: .milliseconds(300))
        _ = try await transport.connect(resumingAfter: nil)
        // A stopped process keeps its sockets open: only the heartbeat can tell (without it this
        // waits until the suite's time limit).
        kill(server.process.processIdentifier, SIGSTOP)
        for await item in transport.events {
            guard case .disconnected(let reason) = item else { continue }
            guard case .connectionLost = reason else { Issue.record("\(reason)"); break }
            break
        }
    }

    @Test func theServerClosesWith4002AClientThatStopsAnsweringPings() async throws {
        let (server, port) = try await start(["--ping-interval", "0.3"])
        defer { server.stop() }
        // A client in a process of its own (Python, from Docs/Protocol.md), stopped once in: it
        // answers no ping. Let go again after the server dropped it, it reads what the server
        // sent before (the close frame waits in its socket's buffer) and prints the close code.
        var python = try PythonClient(port: port, user: "sleepy", then: PythonClient.readUntilClosed)
        defer { python.end() }
        #expect(await python.nextLine() == "connected")
        #expect(try await connections(port: port) == 1)
        let stopped = ContinuousClock.now
        python.stop()
        var open = 1
        for _ in 0..<100 where open != 0 {
            try await Task.sleep(for: .milliseconds(100))
            open = try await connections(port: port)
        }
        #expect(open == 0)
        // Not before two intervals after the first unanswered ping (at most one interval after
        // the stop): the close came from the heartbeat, not from anything sooner.
        #expect(ContinuousClock.now - stopped >= .milliseconds(500))
        python.resume()
        #expect(await python.nextLine() == "closed 4002")
        let text = try await metricsText(port: port)
        #expect(text.contains("chat_rejections_total{reason=\"heartbeatTimeout\"} 1"))
    }

    /// A client that stops reading while the server has much to send it: the server's writes
    /// to it wait (its buffers are full), pings included; the deadline still closes it (4002)
    /// and, the close frame waiting behind the rest, drops the connection after the close
    /// handshake's time. Without that it would hold its connection forever.
    @Test func aClientThatStopsReadingUnderLoadIsDropped() async throws {
        try await HeavyTestGate.run { try await stoppedReaderUnderLoad() }
    }

    private func stoppedReaderUnderLoad() async throws {
        let (server, port) = try await start(["--ping-interval", "2", "--no-limits"])
        defer { server.stop() }
        // A small receive buffer, so that a few megabytes fill what the kernel holds for it.
        var python = try PythonClient(port: port, user: "sleepy", smallReceiveBuffer: true, then: PythonClient.idle)
        defer { python.end() }
        #expect(await python.nextLine() == "connected")
        python.stop()
        // Bob (another Python client, reading everything as it comes) sends 200 messages of
        // 40,000 bytes: 8 MB for the stopped client, twice what its buffers and the server's
        // socket hold, so that the server's writes to it wait.
        var bob = try PythonClient(
            port: port, user: "bob",
            then: """
                async def answers():
                    answered = 0
                    while answered < 201:
                        frame = json.loads(await ws.recv())
                        if frame["type"] in ("response", "failure"):
                            answered += 1
                            if frame["type"] == "failure": print("failure", frame["error"], flush=True)
                reading = asyncio.create_task(answers())
                draft = {"type": "community", "channelId": "room", "userIds": ["sleepy"]}
                await ws.send(json.dumps({"type": "request", "id": 0, "request": {"createChannel": {"_0": draft}}}))
                message = {"channelId": "room", "text": "\u{1F600}" * 10000}
                for i in range(1, 201):
                    await ws.send(json.dumps({"type": "request", "id": i, "request": {"sendMessage": {"_0": message}}}))
                await reading
                print("sent", flush=True)
                await asyncio.sleep(120)
                """)
        defer { bob.end() }
        #expect(await bob.nextLine() == "connected")
        #expect(await bob.nextLine() == "sent")
        var open = 2
        for _ in 0..<250 where open != 1 {
            try await Task.sleep(for: .milliseconds(100))
            open = try await connections(port: port)
        }
        #expect(open == 1, "the stopped client was dropped; bob stays")
        #expect(try await metricsText(port: port).contains("chat_rejections_total{reason=\"heartbeatTimeout\"} 1"))
    }

    /// A client that answers pings stays connected over many intervals.
    @Test func aClientThatAnswersStaysConnected() async throws {
        let (server, port) = try await start(["--ping-interval", "2"])
        defer { server.stop() }
        let transport = WebSocketTransport(
            url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!, userId: "alice", token: { "dev:alice" },
            connector: NIOWebSocketConnector(), pingInterval: .seconds(60))
        _ = try await transport.connect(resumingAfter: nil)
        // Wide intervals: the suite runs beside heavy tests (and builds), and a pong late by
        // four seconds would be a real miss.
        try await Task.sleep(for: .seconds(8.5))  // 4 pings
        #expect(try await connections(port: port) == 1)
        // Still served: a request is answered by the engine (a channel that does not exist).
        do {
            _ = try await transport.send(.getChannel(channelId: "nowhere"))
            Issue.record("answered a channel that does not exist")
        } catch ChatError.notFound {
        }
        await transport.disconnect()
    }

    /// `chat_connections` from the server's `/metrics`.
    private func connections(port: Int) async throws -> Int {
        let line = try await metricsText(port: port).split(separator: "\n").first { $0.hasPrefix("chat_connections ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) } ?? -1
    }

    /// The server's `/metrics` text.
    private func metricsText(port: Int) async throws -> String {
        let (data, _) = try await URLSession.cookieless.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        return String(decoding: data, as: UTF8.self)
    }
}
