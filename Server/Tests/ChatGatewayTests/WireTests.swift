import ChatAPI
import Foundation
import HTTPTypes
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

/// The protocol on a real socket, spoken by hand (WSClient, no SDK): what each frame gets, and
/// the close codes. No frame ends the process or another client's session.
@Suite(.timeLimit(.minutes(1))) struct WireTests {
    /// What a raw client saw: the text frames received and the server's close.
    struct Exchange: Sendable {
        var frames: [String] = []
        var closeCode: Int?
        var closeReason: String?
    }

    /// Connects to `harness` with `token`, sends `outgoing` (text; `nil` for one binary frame),
    /// reads until `until` holds for the frames (or the server closes), then closes.
    private func exchange(
        _ harness: GatewayHarness, token: String = "dev:alice", query: String = "?device=raw",
        send outgoing: [String?], afterWelcome later: [String] = [],
        until: @escaping @Sendable ([String]) -> Bool = { _ in false }
    ) async throws -> Exchange {
        let frames = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "raw")
        logger.logLevel = .critical
        let close = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(harness.port)/v1/connect\(query)",
            configuration: .init(maxFrameSize: 1 << 24, additionalHeaders: [.authorization: "Bearer \(token)"]),
            logger: logger
        ) { inbound, outbound, _ in
            for item in outgoing {
                if let text = item {
                    try await outbound.write(.text(text))
                } else {
                    try await outbound.write(.binary(.init(bytes: [1, 2, 3])))
                }
            }
            var pending = later
            for try await message in inbound.messages(maxSize: 1 << 24) {
                guard case .text(let text) = message else { continue }
                let all = frames.withLockedValue {
                    $0.append(text); return $0
                }
                // Frames to send once the first (the welcome) came back.
                for item in pending { try await outbound.write(.text(item)) }
                pending = []
                if until(all) { return }
            }
        }
        return Exchange(
            frames: frames.withLockedValue { $0 },
            closeCode: close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) },
            closeReason: close?.reason)
    }

    private static let hello = #"{"type":"hello","protocol":1,"resumeAfter":null}"#

    @Test func helloWelcomeRequestResponseEvent() async throws {
        try await GatewayHarness.run { harness in
            // Requests in flight together are handled concurrently (Protocol.md): the message is
            // sent once the channel's creation was answered, on a second connection.
            _ = try await exchange(
                harness,
                send: [
                    Self.hello,
                    #"{"type":"request","id":1,"request":{"createChannel":{"_0":{"type":"community","channelId":"raw"}}}}"#,
                ]
            ) { frames in
                // The answer, and the event of the creation (in either order).
                frames.contains { $0.contains(#""type":"response""#) && $0.contains(#""id":1"#) }
                    && frames.contains { $0.contains(#""type":"event""#) && $0.contains(#""channelCreated""#) }
            }
            let result = try await exchange(
                harness,
                send: [
                    Self.hello,
                    #"{"type":"request","id":2,"request":{"sendMessage":{"_0":{"channelId":"raw","text":"hi"}}}}"#,
                ]
            ) { frames in frames.contains { $0.contains(#""type":"response""#) && $0.contains(#""id":2"#) } }
            let decoded = result.frames.compactMap { try? WireCodec.decode($0) }
            guard case .welcome(1, let connect)? = decoded.first else { Issue.record("\(result.frames)"); return }
            #expect(connect.currentUser.userId == "alice")
            #expect(
                decoded.contains { if case .response(2, let e) = $0 { e.messageValue?.text == "hi" } else { false } })
            #expect(harness.server.messages(channelId: "raw").map(\.text) == ["hi"])
        }
    }

    @Test func badFramesCloseWithTheirCodesAndHurtNoOne() async throws {
        try await GatewayHarness.run { harness in
            // Another user's session stays up through all of it.
            let bystander = try await harness.client("bob")
            let cases: [([String?], Int)] = [
                (["not json"], 1002),
                ([#"{"type":"request","id":1,"request":{"getUser":{"userId":"alice"}}}"#], 1002),  // before hello
                ([Self.hello, #"{"type":"request","id":-5,"request":{"getUser":{"userId":"a"}}}"#], 1002),
                ([Self.hello, #"{"type":"nope"}"#], 1002),
                ([Self.hello, nil], 1003),
                ([#"{"type":"hello","protocol":2,"resumeAfter":null}"#], 4010),
            ]
            for (frames, code) in cases {
                let result = try await exchange(harness, send: frames)
                #expect(
                    result.closeCode == code,
                    "\(frames.map { $0?.prefix(60) ?? "binary" }): \(String(describing: result.closeCode))")
            }
            // A frame over the limit, once the connection is under way (the gateway counts what
            // the WebSocket library refuses from the moment it has joined the connection).
            let tooBig = try await exchange(
                harness, send: [Self.hello], afterWelcome: [String(repeating: "x", count: 1_048_577)])
            #expect(tooBig.closeCode == 1009, "\(String(describing: tooBig.closeCode))")
            // Every one counted, the frame the WebSocket layer refused itself too.
            let (metrics, _) = try await URLSession.cookieless.data(
                from: URL(string: "http://127.0.0.1:\(harness.port)/metrics")!)
            let text = String(decoding: metrics, as: UTF8.self)
            #expect(text.contains("chat_rejections_total{reason=\"protocol\"} 6"), "\(text)")
            #expect(text.contains("chat_rejections_total{reason=\"tooBig\"} 1"), "\(text)")
            // A request that does not decode is answered, and the connection stays usable.
            let result = try await exchange(
                harness,
                send: [
                    Self.hello, #"{"type":"request","id":7,"request":{"getChannel":{}}}"#,
                    #"{"type":"request","id":8,"request":{"getUser":{"userId":"alice"}}}"#,
                ]
            ) { frames in frames.contains { $0.contains(#""id":8"#) } }
            let decoded = result.frames.compactMap { try? WireCodec.decode($0) }
            #expect(decoded.contains { if case .failure(7, .invalidArgument) = $0 { true } else { false } })
            #expect(decoded.contains { if case .response(8, _) = $0 { true } else { false } })
            #expect(bystander.connectionState.snapshot == .connected)
            _ = try await UserRepository(client: bystander).getUser(userId: "bob")
        }
    }

    /// A WebSocket upgrade request with `token`, made by hand: its HTTP status and body.
    private func upgrade(_ harness: GatewayHarness, authorization: String?, query: String = "") async throws -> (
        Int, String
    ) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(harness.port)/v1/connect\(query)")!)
        for (name, value) in [
            ("Connection", "Upgrade"), ("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.cookieless.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func aRefusedTokenIsAnHTTP401BeforeTheUpgradeAndTheTokenMayComeInTheQuery() async throws {
        try await GatewayHarness.run(dev: false) { harness in
            for authorization in [nil, "Bearer dev:alice", "Bearer not.a.jwt", "Basic abc"] as [String?] {
                let (status, body) = try await upgrade(harness, authorization: authorization)
                #expect(status == 401, "\(String(describing: authorization)): \(status) \(body)")
                struct Refusal: Decodable { var error: ChatError }
                let refusal = try JSONDecoder().decode(Refusal.self, from: Data(body.utf8))
                guard case .unauthorized = refusal.error else { Issue.record("\(refusal.error)"); continue }
            }
            // A raw WebSocket client sees the upgrade refused, and nothing was registered.
            await #expect(throws: (any Error).self) {
                try await exchange(harness, token: "dev:alice", send: [Self.hello])
            }
            #expect(harness.server.user("alice") == nil)

            let token = try await harness.token("carol")
            let viaQuery = try await exchange(
                harness, token: "", query: "?device=web&token=\(token)", send: [Self.hello]
            ) { !$0.isEmpty }
            guard case .welcome(_, let result)? = viaQuery.frames.first.flatMap({ try? WireCodec.decode($0) }) else {
                Issue.record("\(viaQuery)")
                return
            }
            #expect(result.currentUser.userId == "carol")
        }
    }

    @Test func healthAndMetricsOverHTTP() async throws {
        try await GatewayHarness.run { harness in
            // Before anything happened, every pinned series is there.
            let (fresh, _) = try await URLSession.cookieless.data(
                from: URL(string: "http://127.0.0.1:\(harness.port)/metrics")!)
            let freshText = String(decoding: fresh, as: UTF8.self)
            for line in ["chat_connections 0", "chat_requests_total 0", "chat_events_delivered_total 0"] {
                #expect(freshText.contains(line), "\(line) in \(freshText)")
            }
            for reason in [
                "unauthorized", "limitExceeded", "rateLimited", "protocol", "tooBig", "tooSlow", "heartbeatTimeout",
            ] {
                #expect(freshText.contains("chat_rejections_total{reason=\"\(reason)\"} 0"))
            }
            _ = try? await exchange(harness, token: "", send: [Self.hello])  // a refusal, counted
            let client = try await harness.client("alice")
            _ = try await UserRepository(client: client).getUser(userId: "alice")
            let (health, healthResponse) = try await URLSession.cookieless.data(
                from: URL(string: "http://127.0.0.1:\(harness.port)/healthz")!)
            #expect((healthResponse as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: health, as: UTF8.self) == "ok")
            let (metrics, _) = try await URLSession.cookieless.data(
                from: URL(string: "http://127.0.0.1:\(harness.port)/metrics")!)
            let text = String(decoding: metrics, as: UTF8.self)
            #expect(text.contains("chat_connections 1"))
            #expect(text.contains("chat_rejections_total{reason=\"unauthorized\"} 1"))
            let requests = text.split(separator: "\n").first { $0.hasPrefix("chat_requests_total ") }
            #expect(requests.flatMap { Int($0.split(separator: " ")[1]) }.map { $0 >= 1 } == true)
            #expect(text.contains("chat_events_delivered_total"))
        }
    }
}
