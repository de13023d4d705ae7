import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// `ServerConnection.sendAtOnce`: what the wire session tries first for every request. Done at
/// once, a request is done exactly as `send` does it; when it cannot be (a query that may step,
/// a fault armed, a request already running at the lock) it does nothing at all.
@Suite struct RequestsAtOnceTests {
    /// A connected device's transport, seen as the server's own connection type.
    private static func connected(_ server: ChatServer, _ userId: String) async throws -> ServerConnection {
        let transport = try #require(server.connection(userId: userId) as? ServerConnection)
        _ = try await transport.connect(resumingAfter: nil)
        return transport
    }

    @Test func aRequestDoneAtOnceIsDoneAsSendDoesIt() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        _ = try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "c", userIds: [])))

        let done = try #require(alice.sendAtOnce(.sendMessage(MessageDraft(channelId: "c", text: "at once"))))
        let (envelope, ticket) = try done.get()
        try await alice.written(ticket)
        guard case .message(let message) = envelope.response else {
            Issue.record("not a message: \(envelope.response)")
            return
        }
        #expect(message.text == "at once" && message.sequence == 1)
        #expect(server.channel("c")?.lastSequence == 1)
        // Its events are queued, at or before its position, as for `send`.
        #expect(server.lastEventSequence(userId: "alice") == envelope.position)

        let sent = try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "sent")))
        guard case .message(let next) = sent.response else {
            Issue.record("not a message: \(sent.response)")
            return
        }
        #expect(next.sequence == 2 && sent.position > envelope.position)
    }

    @Test func aRefusedRequestFailsAtOnceWithSendsErrorAndChangesNothing() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        let before = server.lastEventSequence(userId: "alice")
        let refused = try #require(alice.sendAtOnce(.sendMessage(MessageDraft(channelId: "nowhere", text: "x"))))
        var atOnceError: ChatError?
        if case .failure(let error) = refused { atOnceError = error }
        await #expect(throws: atOnceError ?? .unavailable("no error")) {
            try await alice.send(.sendMessage(MessageDraft(channelId: "nowhere", text: "x")))
        }
        #expect(atOnceError != nil)
        #expect(server.lastEventSequence(userId: "alice") == before)
    }

    @Test func whatMayWaitIsNotDoneAtOnce() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        _ = try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "c", userIds: [])))

        // Queries that may step or read history.
        #expect(alice.sendAtOnce(.queryMessages(MessagePageQuery(channelId: "c"))) == nil)
        #expect(alice.sendAtOnce(.queryChannels(ChannelListQuery(), after: nil)) == nil)

        // A fault armed: left to `send`, which takes it (nothing done at once).
        server.faults.failNext(with: .unavailable("injected"), userId: "alice")
        #expect(alice.sendAtOnce(.sendMessage(MessageDraft(channelId: "c", text: "x"))) == nil)
        await #expect(throws: ChatError.unavailable("injected")) {
            try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "x")))
        }
        #expect(server.channel("c")?.lastSequence == 0)

        // Another request at the lock: nothing done at once either.
        let engine = server.engine
        #expect(engine.requests.tryCombining())
        #expect(alice.sendAtOnce(.sendMessage(MessageDraft(channelId: "c", text: "x"))) == nil)
        engine.requests.finishCombining()
        #expect(server.channel("c")?.lastSequence == 0)
    }

    @Test func aDeviceNotConnectedIsUnavailable() throws {
        let server = ChatServer(clock: ManualClock())
        let transport = try #require(server.connection(userId: "alice") as? ServerConnection)
        let result = try #require(transport.sendAtOnce(.getUser(userId: "alice")))
        guard case .failure(.unavailable) = result else {
            Issue.record("expected unavailable, got \(result)")
            return
        }
    }
}
