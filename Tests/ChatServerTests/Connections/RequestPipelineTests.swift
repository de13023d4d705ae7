import ChatAPI
import Foundation
import Locking
import Testing

@testable import ChatServer

/// `ServerConnection.submit`: the one way a request enters the server (the wire session's, and
/// `send`'s underneath). A request that needs nothing but its turn at the lock is answered on
/// the caller's thread before `submit` returns, or from the thread of the request running at the
/// lock; whatever must wait (a query in steps, a fault, the storage) is answered later — each
/// exactly once, and exactly as `send` answers it.
@Suite(.timeLimit(.minutes(1))) struct RequestPipelineTests {
    /// A connected device's transport, seen as the server's own connection type.
    private static func connected(_ server: ChatServer, _ userId: String) async throws -> ServerConnection {
        let transport = try #require(server.connection(userId: userId) as? ServerConnection)
        _ = try await transport.connect(resumingAfter: nil)
        return transport
    }

    /// The answers a request got, in the order they came.
    private final class Answers: Sendable {
        private let answers = Lock<[Result<ResponseEnvelope, ChatError>]>([], rank: .leaf)
        func record(_ answer: Result<ResponseEnvelope, ChatError>) { answers.withLock { $0.append(answer) } }
        var all: [Result<ResponseEnvelope, ChatError>] { answers.withLock { $0 } }

        /// Waits (a bounded number of yields) until `count` answers came.
        func wait(for count: Int) async -> [Result<ResponseEnvelope, ChatError>] {
            for _ in 0..<100_000 where all.count < count { await Task.yield() }
            return all
        }
    }

    @Test func aRequestThatNeedsOnlyItsTurnIsAnsweredBeforeSubmitReturnsAsSendAnswersIt() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        _ = try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "c", userIds: [])))

        let answers = Answers()
        alice.submit(.sendMessage(MessageDraft(channelId: "c", text: "at once")), answer: answers.record)
        let answered = answers.all
        #expect(answered.count == 1, "answered on this thread, before submit returned")
        let envelope = try #require(try answered.first?.get())
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

    @Test func aRefusedRequestIsAnsweredWithSendsErrorAndChangesNothing() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        let before = server.lastEventSequence(userId: "alice")
        let answers = Answers()
        alice.submit(.sendMessage(MessageDraft(channelId: "nowhere", text: "x")), answer: answers.record)
        var submitted: ChatError?
        if case .failure(let error)? = answers.all.first { submitted = error }
        #expect(submitted != nil)
        await #expect(throws: submitted ?? .unavailable("no error")) {
            try await alice.send(.sendMessage(MessageDraft(channelId: "nowhere", text: "x")))
        }
        #expect(server.lastEventSequence(userId: "alice") == before)
    }

    @Test func aRequestBehindAnotherAtTheLockIsAnsweredWhenThatOneEnds() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        _ = try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "c", userIds: [])))

        let engine = server.engine
        #expect(engine.requests.tryCombining())
        let answers = Answers()
        alice.submit(.sendMessage(MessageDraft(channelId: "c", text: "queued")), answer: answers.record)
        #expect(answers.all.isEmpty, "nothing runs while another request holds the turn")
        #expect(server.channel("c")?.lastSequence == 0)
        engine.requests.finishCombining()
        #expect(answers.all.count == 1, "answered from the thread that ran the queue")
        #expect(server.channel("c")?.lastSequence == 1)
    }

    @Test func whatMayWaitIsAnsweredOnceLater() async throws {
        let server = ChatServer(clock: ManualClock())
        let alice = try await Self.connected(server, "alice")
        _ = try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "c", userIds: [])))
        _ = try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "one")))

        // Queries that may step or read history: a task answers them.
        let pages = Answers()
        alice.submit(.queryMessages(MessagePageQuery(channelId: "c")), answer: pages.record)
        alice.submit(.queryChannels(ChannelListQuery(), after: nil), answer: pages.record)
        let answeredPages = await pages.wait(for: 2)
        #expect(answeredPages.count == 2 && answeredPages.allSatisfy { (try? $0.get()) != nil })

        // A fault armed: taken by the request, which changes nothing.
        server.faults.failNext(with: .unavailable("injected"), userId: "alice")
        let faulted = Answers()
        alice.submit(.sendMessage(MessageDraft(channelId: "c", text: "x")), answer: faulted.record)
        let failure = await faulted.wait(for: 1)
        guard case .failure(.unavailable("injected"))? = failure.first else {
            Issue.record("expected the injected failure, got \(failure)")
            return
        }
        #expect(server.channel("c")?.lastSequence == 1)
        for _ in 0..<1_000 { await Task.yield() }
        #expect(faulted.all.count == 1, "answered exactly once")
    }

    @Test func aDeviceNotConnectedIsAnsweredUnavailableAtOnce() throws {
        let server = ChatServer(clock: ManualClock())
        let transport = try #require(server.connection(userId: "alice") as? ServerConnection)
        let answers = Answers()
        transport.submit(.getUser(userId: "alice"), answer: answers.record)
        guard case .failure(.unavailable)? = answers.all.first else {
            Issue.record("expected unavailable, got \(answers.all)")
            return
        }
    }
}
