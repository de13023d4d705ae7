import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Locking
import Testing

/// `WebSocketTransport` over the wire protocol (in memory: `InMemoryWireConnector` and the
/// server's `WireSession`): tokens, request ids, events, close codes.
@Suite(.timeLimit(.minutes(1))) struct WebSocketTransportTests {
    private let server = ChatServer()
    private let url = URL(string: "ws://in-memory/v1/connect")!

    /// Counts the tokens handed out, from a list (the last repeats).
    private final class Tokens: Sendable {
        private let state: Lock<(tokens: [String], asked: Int)>
        init(_ tokens: [String]) { state = Lock((tokens, 0)) }
        var asked: Int { state.withLock { $0.asked } }
        func next() -> String {
            state.withLock { state in
                defer { state.asked += 1 }
                return state.tokens[min(state.asked, state.tokens.count - 1)]
            }
        }
    }

    /// Counts the connections a connector opens.
    private struct CountingConnector: WebSocketConnector {
        let inner: InMemoryWireConnector
        let count = Counter()
        func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
            count.add()
            return try await inner.connect(request)
        }
    }

    final class Counter: Sendable {
        private let value = Lock(0)
        var count: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }

    private func transport(_ user: String, tokens: Tokens, connector: (any WebSocketConnector)? = nil)
        -> WebSocketTransport
    {
        WebSocketTransport(
            url: url, userId: user, deviceId: "phone", token: { tokens.next() },
            connector: connector ?? InMemoryWireConnector(server: server))
    }

    @Test func theTokenIsAskedAtEveryConnectAndARefusedOneIsNotSentAgain() async throws {
        let tokens = Tokens(["forged", "forged", "dev:alice"])
        let connector = CountingConnector(inner: InMemoryWireConnector(server: server))
        let alice = transport("alice", tokens: tokens, connector: connector)
        await #expect(throws: ChatError.self) { try await alice.connect(resumingAfter: nil) }
        #expect(connector.count.count == 1)
        // The provider returned the refused token again: refused without a connection.
        do {
            _ = try await alice.connect(resumingAfter: nil)
            Issue.record("connected with a refused token")
        } catch let error as ChatError {
            guard case .unauthorized = error else { Issue.record("\(error)"); return }
        }
        #expect(connector.count.count == 1)
        let result = try await alice.connect(resumingAfter: nil)
        #expect(result.currentUser.userId == "alice" && result.status == .new)
        #expect(tokens.asked == 3 && connector.count.count == 2)
    }

    @Test func aTokenForAnotherUserIsRefused() async throws {
        let mallory = transport("mallory", tokens: Tokens(["dev:alice"]))
        do {
            _ = try await mallory.connect(resumingAfter: nil)
            Issue.record("connected as another user")
        } catch let error as ChatError {
            guard case .unauthorized(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("alice"))
        }
        #expect(server.user("mallory") == nil)
    }

    @Test func requestsBeforeConnectingFailAndConcurrentRequestsGetTheirOwnAnswers() async throws {
        let alice = transport("alice", tokens: Tokens(["dev:alice"]))
        await #expect(throws: ChatError.self) { try await alice.send(.getUser(userId: "alice")) }
        _ = try await alice.connect(resumingAfter: nil)
        for index in 0..<20 { try await server.registerUser(id: "user\(index)", displayName: "User \(index)") }
        let names = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<20 {
                group.addTask { (index, try await alice.send(.getUser(userId: "user\(index)")).userValue?.displayName) }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(names == Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, "User \($0)") }))
        // A failure answers its own request and leaves the connection usable.
        await #expect(throws: ChatError.notFound("channel 'nope'")) {
            try await alice.send(.getChannel(channelId: "nope"))
        }
        #expect(try await alice.send(.getUser(userId: "alice")).userValue?.userId == "alice")
    }

    @Test func eventsArriveInOrderAndADropEndsTheConnection() async throws {
        let alice = transport("alice", tokens: Tokens(["dev:alice"]))
        _ = try await alice.connect(resumingAfter: nil)
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "ops")))
        for index in 0..<5 { try await server.sendMessage(as: "alice", channelId: "ops", text: "m\(index)") }
        server.faults.dropConnection(userId: "alice", deviceId: "phone")
        var sequences: [Int] = []
        for await item in alice.events {
            switch item {
            case .event(let envelope): sequences.append(envelope.sequence)
            case .disconnected(let reason):
                guard case .connectionLost = reason else { Issue.record("\(reason)"); return }
                #expect(sequences == Array(1...sequences.count) && sequences.count >= 6)
                #expect(alice.lastEventSequence == sequences.last)
                // Resuming replays nothing that was applied and keeps the numbering.
                let result = try await alice.connect(resumingAfter: sequences.last)
                #expect(result.status == .resumed)
                await #expect(throws: Never.self) { try await alice.send(.getChannel(channelId: "ops")) }
                return
            }
        }
    }

    @Test func anotherConnectionOfTheDeviceReplacesThisOne() async throws {
        let first = transport("alice", tokens: Tokens(["dev:alice"]))
        let second = transport("alice", tokens: Tokens(["dev:alice"]))
        _ = try await first.connect(resumingAfter: nil)
        _ = try await second.connect(resumingAfter: nil)
        for await item in first.events {
            if case .disconnected(let reason) = item {
                #expect(reason == .replaced)
                break
            }
        }
        await #expect(throws: ChatError.self) { try await first.send(.getUser(userId: "alice")) }
        #expect(try await second.send(.getUser(userId: "alice")).userValue?.userId == "alice")
    }

    @Test func disconnectEndsWithRequestedAndIsIdempotent() async throws {
        let alice = transport("alice", tokens: Tokens(["dev:alice"]))
        _ = try await alice.connect(resumingAfter: nil)
        await alice.disconnect()
        await alice.disconnect()
        var iterator = alice.events.makeAsyncIterator()
        #expect(await iterator.next() == .disconnected(.requested))
        await #expect(throws: ChatError.self) { try await alice.send(.getUser(userId: "alice")) }
    }

    @Test func aClientOverTheWireSeesWhatTheServerSays() async throws {
        let fixture = ChatFixture(server: server, door: .wire)
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await server.createChannel(type: .community, channelId: "ops", userIds: ["alice", "bob"])
        try await MessageRepository(client: alice).sendMessage(
            channelId: "ops", text: "hi bob", mentionedUserIds: ["bob"])
        await bob.synchronize()
        #expect(ChannelRepository(client: bob).totalUnreadCount == 1)
        #expect(server.unreadCount(userId: "bob", channelId: "ops") == 1)
    }
}
