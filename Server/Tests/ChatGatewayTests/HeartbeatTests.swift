import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Heartbeats both ways, against a real `chat-server` process that stops (SIGSTOP): a client
/// notices a dead server within two ping intervals, and the server drops a client that stopped
/// answering its pings.
@Suite(.timeLimit(.minutes(1))) struct HeartbeatTests {
    private let chatServer = Subprocess.product("chat-server")

    private func start(_ arguments: [String]) async throws -> (Subprocess, Int) {
        let server = try Subprocess(chatServer, ["--dev", "--port", "0"] + arguments, environment: ["CHAT_SERVER_SECRET": ""])
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

    @Test func theServerDropsAClientThatStopsAnsweringPings() async throws {
        let (server, port) = try await start(["--ping-interval", "0.3"])
        defer { server.process.terminate() }
        // A client in a process of its own (Python, from Docs/Protocol.md), stopped once in.
        let script = """
            import asyncio, json, sys, websockets
            async def main():
                ws = await websockets.connect("ws://127.0.0.1:\(port)/v1/connect?device=py",
                    additional_headers={"Authorization": "Bearer dev:sleepy"})
                await ws.send(json.dumps({"type": "hello", "protocol": 1, "resumeAfter": None}))
                await ws.recv()
                print("connected", flush=True)
                await asyncio.sleep(60)
            asyncio.run(main())
            """
        let python = try Subprocess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script])
        var lines = python.lines.makeAsyncIterator()
        #expect(await lines.next() == "connected")
        #expect(try await connections(port: port) == 1)
        kill(python.process.processIdentifier, SIGSTOP)
        defer { kill(python.process.processIdentifier, SIGKILL) }
        var open = 1
        for _ in 0..<100 where open != 0 {
            try await Task.sleep(for: .milliseconds(100))
            open = try await connections(port: port)
        }
        #expect(open == 0)
    }

    /// `chat_connections` from the server's `/metrics`.
    private func connections(port: Int) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("chat_connections ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) }.map { Int($0) } ?? -1
    }
}
