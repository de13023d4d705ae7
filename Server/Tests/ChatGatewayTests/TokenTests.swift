import ChatAPI
import ChatGateway
import ChatServer
import Foundation
import LiveChannels
import LiveChannelsNIO
import NIOConcurrencyHelpers
import Testing
import ServerTestSupport

/// Who may act, over a real loopback WebSocket: signed HS256 tokens only, `exp` checked, dev
/// tokens only with `--dev`, and a connection acts for its token's `sub` alone.
// 15 minutes: its expiry test waits its turn among the heavy tests (HeavyTestGate).
@Suite(.timeLimit(.minutes(15))) struct TokenTests {
    /// `connect()` with `token` fails with `unauthorized`; returns its reason.
    private func refusal(_ harness: GatewayHarness, user: String = "alice", token: String) async -> String? {
        let transport = harness.transport(user, token: { token })
        do {
            _ = try await transport.connect(resumingAfter: nil)
            Issue.record("connected with \(token)")
            return nil
        } catch let error as ChatError {
            guard case .unauthorized(let reason) = error else {
                Issue.record("\(error)")
                return nil
            }
            return reason
        } catch {
            Issue.record("\(error)")
            return nil
        }
    }

    /// `base64url` of `text`.
    private func segment(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func aSignedTokenSignsInItsSubject() async throws {
        try await GatewayHarness.run(dev: false) { harness in
            let token = try await harness.token("alice")
            let alice = harness.transport("alice", token: { token })
            let result = try await alice.connect(resumingAfter: nil)
            #expect(result.currentUser.userId == "alice")
            // No request names its sender: what alice sends is alice's.
            _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "ops")))
            let message = try await alice.send(.sendMessage(MessageDraft(channelId: "ops", text: "hi")))
            #expect(message.messageValue?.userId == "alice")
            #expect(harness.server.messages(channelId: "ops").map(\.userId) == ["alice"])
        }
    }

    @Test func forgedExpiredUnsignedMissingAndDevTokensAreRefused() async throws {
        try await GatewayHarness.run(dev: false) { harness in
            let good = try await harness.token("alice")
            let parts = good.split(separator: ".").map(String.init)
            // Forged: the payload changed to bob, the signature kept.
            let forged = [parts[0], segment(#"{"sub":"bob","exp":4102444800}"#), parts[2]].joined(separator: ".")
            #expect(await refusal(harness, user: "bob", token: forged)?.contains("signature") == true)
            // Signed by another secret.
            let other = try await TokenAuthority(
                secret: Array("another secret, also 32 bytes long!!".utf8), allowsDevTokens: false)
            #expect(
                await refusal(harness, token: try await other.makeToken(for: "alice", ttl: 60))?.contains("signature")
                    == true)
            // alg none, no signature.
            let none = [segment(#"{"alg":"none","typ":"JWT"}"#), segment(#"{"sub":"alice","exp":4102444800}"#), ""]
                .joined(separator: ".")
            #expect(await refusal(harness, token: none)?.contains("HS256") == true)
            // Another algorithm named in the header, even with this server's HS256 signature.
            let hs512 = [segment(#"{"alg":"HS512","typ":"JWT"}"#), parts[1], parts[2]].joined(separator: ".")
            #expect(await refusal(harness, token: hs512)?.contains("HS256") == true)
            // Expired (beyond the leeway).
            let expiredAuthority = try await TokenAuthority(
                secret: GatewayHarness.secret, allowsDevTokens: false,
                clock: ManualClock(start: Date().addingTimeInterval(-7_200)))
            #expect(
                await refusal(harness, token: try await expiredAuthority.makeToken(for: "alice", ttl: 3_600))?.contains(
                    "expired") == true)
            // Missing, garbage, and a dev token without --dev.
            #expect(await refusal(harness, token: "")?.contains("no token") == true)
            #expect(await refusal(harness, token: "not.a.jwt") != nil)
            #expect(await refusal(harness, token: "dev:alice")?.contains("--dev") == true)
            #expect(harness.server.user("alice") == nil && harness.server.user("bob") == nil)
        }
    }

    /// `exp` is checked with 60 s of leeway: a token expired 30 s ago still signs in; one
    /// expired 90 s ago does not.
    @Test func expiryHasSixtySecondsOfLeeway() async throws {
        try await GatewayHarness.run(dev: false) { harness in
            func token(expiredSecondsAgo seconds: TimeInterval) async throws -> String {
                let authority = try await TokenAuthority(
                    secret: GatewayHarness.secret, allowsDevTokens: false,
                    clock: ManualClock(start: Date().addingTimeInterval(-3_600 - seconds)))
                return try await authority.makeToken(for: "alice", ttl: 3_600)
            }
            let recent = try await token(expiredSecondsAgo: 30)
            let alice = harness.transport("alice", token: { recent })
            #expect(try await alice.connect(resumingAfter: nil).currentUser.userId == "alice")
            await alice.disconnect()
            #expect(await refusal(harness, token: try await token(expiredSecondsAgo: 90))?.contains("expired") == true)
        }
    }

    /// A token in the `Authorization` header wins over one in `?token=`.
    @Test func theHeaderWinsOverTheQuery() async throws {
        try await GatewayHarness.run { harness in
            let url = URL(string: "ws://127.0.0.1:\(harness.port)/v1/connect?device=both&token=dev:bob")!
            let connection = try await NIOWebSocketConnector().connect(
                WebSocketRequest(url: url, headers: ["Authorization": "Bearer dev:alice"]))
            try await connection.send(try WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil)))
            for await item in connection.inbound {
                guard case .text(let text) = item else { Issue.record("\(item)"); break }
                guard case .welcome(_, let result) = try WireCodec.decode(text) else { continue }
                #expect(result.currentUser.userId == "alice")
                break
            }
            await connection.close(code: 1000, reason: "")
        }
    }

    @Test func aTokenForAnotherUserDoesNotActForTheTransportsUser() async throws {
        try await GatewayHarness.run { harness in
            #expect(await refusal(harness, user: "bob", token: "dev:alice")?.contains("alice") == true)
        }
    }

    @Test func aTokenThatExpiresWhileConnectedClosesWith4001AndTheClientAsksForANewOne() async throws {
        // Its timing (a token's seconds) runs alone, not beside the heavy process tests.
        try await HeavyTestGate.run { try await expiringToken() }
    }

    private func expiringToken() async throws {
        try await GatewayHarness.run(dev: false, leeway: 0) { harness in
            // Long enough for a connect on a machine busy with other tests and builds.
            let short = try await harness.token("alice", ttl: 12)
            let fresh = try await harness.token("alice", ttl: 3_600)
            let handed = Counter()
            let transport = harness.transport("alice", token: { handed.next() == 0 ? short : fresh })
            let client = ChatClient(transport: transport, reconnectPolicy: .immediate)
            try await client.connect()
            // The connection ends when the short token expires; the reconnect asks again and
            // gets the fresh one.
            var sawUnauthorized = false
            for await state in client.connectionState.values {
                if case .unauthorized? = client.connectionState.error as? ChatError { sawUnauthorized = true }
                if sawUnauthorized, state == .connected { break }
            }
            #expect(handed.value >= 2)
        }
    }

    @Test func aUserBannedFromAChannelSignsInButCannotRejoinIt() async throws {
        let server = ChatServer()
        try await server.createChannel(type: .community, channelId: "ops", userIds: ["mod", "bob"])
        try await GatewayHarness.run(server: server) { harness in
            let mod = harness.transport("mod")
            _ = try await mod.connect(resumingAfter: nil)
            try await server.registerUser(id: "mod", isAdmin: true)
            _ = try await mod.send(.banMembers(channelId: "ops", userIds: ["bob"]))
            let bob = harness.transport("bob")
            _ = try await bob.connect(resumingAfter: nil)
            await #expect(throws: ChatError.self) { try await bob.send(.joinChannel(channelId: "ops")) }
            await #expect(throws: ChatError.self) {
                try await bob.send(.sendMessage(MessageDraft(channelId: "ops", text: "let me in")))
            }
            #expect(server.messages(channelId: "ops").isEmpty)
        }
    }
}

/// A thread-safe counter: `next()` returns 0, 1, 2, …
final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    var value: Int { count.withLockedValue { $0 } }
    func next() -> Int {
        count.withLockedValue { value in
            defer { value += 1 }
            return value
        }
    }
}
