import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Logging
import NIOConcurrencyHelpers
import NIOWebSocket
import Testing
import WSClient
import ServerTestSupport
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The limits over the wire: a device past the cap is an HTTP 429 before the upgrade, a device
/// that keeps going after refusals is closed with 4008, one that stops reading with 4009; each
/// refusal counted in `/metrics`.
@Suite(.timeLimit(.minutes(1))) struct LimitTests {
    private static let hello = #"{"type":"hello","protocol":1,"resumeAfter":null}"#

    private func metrics(_ harness: GatewayHarness) async throws -> String {
        let (data, _) = try await URLSession.cookieless.data(
            from: URL(string: "http://127.0.0.1:\(harness.port)/metrics")!)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func oneDeviceTooManyIsAnHTTP429BeforeTheUpgrade() async throws {
        var configuration = ServerConfiguration()
        configuration.maxDevicesPerUser = 1
        try await GatewayHarness.run(server: ChatServer(configuration: configuration)) { harness in
            let phone = try await harness.client("alice", deviceId: "phone")
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(harness.port)/v1/connect?device=web")!)
            for (name, value) in [
                ("Connection", "Upgrade"), ("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13"),
                ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Authorization", "Bearer dev:alice"),
            ] {
                request.setValue(value, forHTTPHeaderField: name)
            }
            let (data, response) = try await URLSession.cookieless.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 429)
            struct Refusal: Decodable { var error: ChatError }
            let refusal = try JSONDecoder().decode(Refusal.self, from: data)
            guard case .limitExceeded = refusal.error else {
                Issue.record("\(refusal.error)")
                return
            }
            // Without the upgrade headers, the same answer.
            var plain = URLRequest(url: URL(string: "http://127.0.0.1:\(harness.port)/v1/connect?device=web")!)
            plain.setValue("Bearer dev:alice", forHTTPHeaderField: "Authorization")
            let (_, plainResponse) = try await URLSession.cookieless.data(for: plain)
            #expect((plainResponse as? HTTPURLResponse)?.statusCode == 429)
            // Another user, and the same device again, are fine.
            _ = try await harness.client("bob", deviceId: "web")
            #expect(try await metrics(harness).contains("chat_rejections_total{reason=\"limitExceeded\"} 1"))
            await phone.disconnect()
        }
    }

    @Test func aDeviceThatKeepsGoingAfterRefusalsIsClosedWith4008() async throws {
        var configuration = ServerConfiguration()
        configuration.requestsPerSecond = 0.01
        try await GatewayHarness.run(server: ChatServer(configuration: configuration)) { harness in
            let frames = NIOLockedValueBox<[String]>([])
            var logger = Logger(label: "raw")
            logger.logLevel = .critical
            let close = try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(harness.port)/v1/connect?device=flood",
                configuration: .init(additionalHeaders: [.authorization: "Bearer dev:alice"]), logger: logger
            ) { inbound, outbound, _ in
                try await outbound.write(.text(Self.hello))
                for id in 0..<150 {
                    try await outbound.write(
                        .text(#"{"type":"request","id":\#(id),"request":{"getUser":{"userId":"alice"}}}"#))
                }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { frames.withLockedValue { $0.append(text) } }
                }
            }
            #expect(close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) } == 4008)
            let failures = frames.withLockedValue { $0 }.filter {
                $0.contains("\"failure\"") && $0.contains("rateLimited")
            }
            // Every refusal is answered before the close, the 100th (the one that closes) included.
            #expect(failures.count == 100, "\(failures.count) refusals answered before the close")
            let text = try await metrics(harness)
            #expect(text.contains("chat_rejections_total{reason=\"rateLimited\"}"))
            // Another user is not affected.
            let bob = try await harness.client("bob")
            await bob.disconnect()
        }
    }

    /// A client that stops reading: the server stops at the pending limit, closes with 4009 and
    /// drops the connection; others keep chatting; the device's events are kept for its return.
    @Test func aDeviceThatStopsReadingIsClosedWith4009() async throws {
        var configuration = ServerConfiguration()
        configuration.maxPendingEvents = 20
        let server = ChatServer(configuration: configuration)
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        try await GatewayHarness.run(server: server) { harness in
            let reading = NIOLockedValueBox(false)
            let received = NIOLockedValueBox(0)
            var logger = Logger(label: "raw")
            logger.logLevel = .critical
            let client = Task {
                try await WebSocketClient.connect(
                    url: "ws://127.0.0.1:\(harness.port)/v1/connect?device=stalled",
                    configuration: .init(
                        maxFrameSize: 1 << 24, additionalHeaders: [.authorization: "Bearer dev:alice"]),
                    logger: logger
                ) { inbound, outbound, _ in
                    try await outbound.write(.text(Self.hello))
                    var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                    _ = try await messages.next()  // welcome
                    while !reading.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
                    while let message = try await messages.next() {
                        if case .text = message { received.withLockedValue { $0 += 1 } }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            // Bob sends through the console and connects only afterwards: a connected bob would
            // be a second reader of the room, and under a loaded machine it could fall behind a
            // cap this small too.
            let text = String(repeating: "x", count: 4_000)
            var sent = 0
            var closed = false
            while sent < 40_000, !closed {
                for _ in 0..<500 { try await server.sendMessage(as: "bob", channelId: "room", text: text) }
                sent += 500
                closed = try await metrics(harness).contains("chat_rejections_total{reason=\"tooSlow\"} 1")
            }
            #expect(closed, "closed as too slow after \(sent) messages")
            reading.withLockedValue { $0 = true }
            _ = try? await client.value
            #expect(
                received.withLockedValue { $0 } < sent,
                "the stalled device did not get everything through that connection")
            // Bob is fine.
            let bob = try await harness.client("bob")
            let channel = try await ChannelRepository(client: bob).getChannel(channelId: "room")
            #expect(channel.lastSequence == sent)
            await bob.disconnect()
        }
    }

    /// A device stopped with its socket full: the server's writes to it wait, so the too-slow
    /// end cannot wait behind them in the event stream. It is closed with 4009 at once and its
    /// TCP connection dropped after the close handshake's time — long before any heartbeat.
    @Test func aStoppedDeviceBehindFullBuffersIsClosedWith4009AndDropped() async throws {
        var configuration = ServerConfiguration()
        configuration.maxPendingEvents = 50
        let server = ChatServer(configuration: configuration)
        try await server.createChannel(type: .community, channelId: "room", userIds: ["sleepy", "bob"])
        try await GatewayHarness.run(server: server, pingInterval: .seconds(120)) { harness in
            // A Python client with a small receive buffer, stopped once in.
            var python = try PythonClient(
                port: harness.port, user: "sleepy", smallReceiveBuffer: true, then: PythonClient.idle)
            defer { python.end() }
            #expect(await python.nextLine() == "connected")
            python.stop()
            // 12 MB for it, paced at first so that the server keeps up until its socket and the
            // client's are full (about 4 MB) and its writes wait; then the pending events pass 50.
            let text = String(repeating: "😀", count: 10_000)
            for index in 0..<300 {
                try await server.sendMessage(as: "bob", channelId: "room", text: text)
                if index < 150 { try await Task.sleep(for: .milliseconds(5)) }
            }
            var dropped = false
            for _ in 0..<150 where !dropped {
                try await Task.sleep(for: .milliseconds(100))
                let text = try await metrics(harness)
                dropped =
                    text.contains("chat_connections 0") && text.contains("chat_rejections_total{reason=\"tooSlow\"} 1")
            }
            #expect(dropped, "closed as too slow and dropped within 15 s")
        }
    }
}
