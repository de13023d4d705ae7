import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// A send with a client-chosen `messageId` happens once: a repeat from the same user into the
/// same channel answers the stored message and changes nothing — in memory, after a restart on
/// SQLite or a database, and across the nodes of a cluster.
@Suite(.timeLimit(.minutes(1))) struct IdempotentSendTests {
    static func draft(_ text: String, id: String?, in channelId: String = "ops") -> ChatRequest {
        .sendMessage(MessageDraft(channelId: channelId, text: text, messageId: id))
    }

    static func message(_ response: ChatResponse) throws -> Message {
        guard case .message(let message) = response else { throw ChatError.unavailable("not a message: \(response)") }
        return message
    }

    /// alice and bob, members of "ops" and "other", connected.
    static func pair(_ server: ChatServer) async throws -> (TestDevice, TestDevice) {
        var alice = TestDevice(server, "alice")
        var bob = TestDevice(server, "bob")
        try await alice.connect()
        try await bob.connect()
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "ops", userIds: ["bob"])))
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "other", userIds: ["bob"])))
        return (alice, bob)
    }

    @Test func aRepeatAnswersTheStoredMessageAndChangesNothing() async throws {
        let server = ChatServer()
        var (alice, bob) = try await Self.pair(server)
        let first = try Self.message(try await alice.send(Self.draft("hello", id: "c-1")))
        #expect(first.messageId == "c-1" && first.sequence == 1)
        _ = await bob.drain()
        let revision = server.engine.currentState.revision
        let bobsLastEvent = server.lastEventSequence(userId: "bob")

        // The repeat — even with other content — answers what was stored.
        let repeated = try Self.message(try await alice.send(Self.draft("hello again", id: "c-1")))
        #expect(repeated == first && repeated.version == first.version)
        #expect(server.engine.currentState.revision == revision, "nothing changed")
        #expect(server.lastEventSequence(userId: "bob") == bobsLastEvent, "no event")
        #expect(server.messages(channelId: "ops").map(\.messageId) == ["c-1"])
        #expect(server.unreadCount(userId: "bob", channelId: "ops") == 1)
        #expect(server.channel("ops")?.lastSequence == 1)
        _ = await alice.drain()
    }

    @Test func theIdOfAnotherUsersOrChannelsMessageIsTaken() async throws {
        let server = ChatServer()
        let (alice, bob) = try await Self.pair(server)
        try await alice.send(Self.draft("mine", id: "taken"))
        for (device, request) in [
            (bob, Self.draft("yours", id: "taken")), (alice, Self.draft("there", id: "taken", in: "other")),
        ] {
            let error = await #expect(throws: ChatError.self) { try await device.send(request) }
            guard case .alreadyExists(let what) = error else {
                Issue.record("expected alreadyExists, got \(String(describing: error))")
                continue
            }
            #expect(what.contains("taken"))
        }
        #expect(server.messages(channelId: "ops").count == 1 && server.messages(channelId: "other").isEmpty)
    }

    @Test(arguments: ["", "a b", "é", String(repeating: "x", count: 65), "a/b", "a.b"])
    func aBadIdIsRefusedNamingTheField(_ id: String) async throws {
        let server = ChatServer()
        let (alice, _) = try await Self.pair(server)
        let error = await #expect(throws: ChatError.self) { try await alice.send(Self.draft("x", id: id)) }
        guard case .invalidArgument(let field, _) = error else {
            Issue.record("expected invalidArgument, got \(String(describing: error))")
            return
        }
        #expect(field == "messageId")
        #expect(server.messages(channelId: "ops").isEmpty)
    }

    @Test func theLongestAndEveryAllowedCharacterAreAccepted() async throws {
        let server = ChatServer()
        let (alice, _) = try await Self.pair(server)
        let longest = String(repeating: "z", count: 64)
        let every = "ABCXYZabcxyz0189_-"
        #expect(try Self.message(try await alice.send(Self.draft("a", id: longest))).messageId == longest)
        #expect(try Self.message(try await alice.send(Self.draft("b", id: every))).messageId == every)
    }

    /// The server's own ids never collide with one a client chose.
    @Test func madeIdsSkipChosenOnes() async throws {
        let server = ChatServer()
        let (alice, _) = try await Self.pair(server)
        try await alice.send(Self.draft("squatter", id: "message-1"))
        try await alice.send(Self.draft("squatter", id: "message-2"))
        let made = try Self.message(try await alice.send(Self.draft("mine", id: nil)))
        #expect(!["message-1", "message-2"].contains(made.messageId))
        #expect(Set(server.messages(channelId: "ops").map(\.messageId)).count == 3)
    }

    @Test func aRepeatAfterARestartOnSQLiteAnswersTheStoredMessage() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        var server = try ChatServer(storage: .sqlite(directory.file))
        var (alice, _) = try await Self.pair(server)
        let first = try Self.message(try await alice.send(Self.draft("hello", id: "c-1")))
        await server.close()
        server = try ChatServer(storage: .sqlite(directory.file))
        alice = TestDevice(server, "alice")
        try await alice.connect()
        let repeated = try Self.message(try await alice.send(Self.draft("hello", id: "c-1")))
        #expect(repeated == first)
        #expect(server.messages(channelId: "ops").map(\.messageId) == ["c-1"])
        var bobDevice = TestDevice(server, "bob")
        try await bobDevice.connect()
        await #expect(throws: ChatError.alreadyExists("message 'c-1'")) {
            try await bobDevice.send(Self.draft("mine", id: "c-1"))
        }
        await server.close()
    }

    @Test func aRepeatAfterARestartOnADatabaseAnswersTheStoredMessage() async throws {
        let database = MemoryDatabase()
        var server = try await ChatServer(opening: .database(database))
        var (alice, _) = try await Self.pair(server)
        let first = try Self.message(try await alice.send(Self.draft("hello", id: "c-1")))
        await server.close()
        server = try await ChatServer(opening: .database(database))
        alice = TestDevice(server, "alice")
        try await alice.connect()
        #expect(try Self.message(try await alice.send(Self.draft("hello", id: "c-1"))) == first)
        #expect(server.messages(channelId: "ops").map(\.messageId) == ["c-1"])
        await server.close()
    }

    /// Two nodes asked at once with one id: the log orders the two sends, the second answers the
    /// first's message, and every node holds one message.
    @Test func twoNodesAskedAtOnceWithOneIdMakeOneMessage() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        var alice = TestDevice(nodes[0], "alice", "phone")
        var aliceElsewhere = TestDevice(nodes[1], "alice", "laptop")
        try await alice.connect()
        try await aliceElsewhere.connect()
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "ops", userIds: ["bob"])))
        try await ClusterTests.settle(nodes, log)
        async let one = alice.send(Self.draft("hi", id: "once"))
        async let other = aliceElsewhere.send(Self.draft("hi", id: "once"))
        let (a, b) = (try Self.message(try await one), try Self.message(try await other))
        #expect(a == b && a.sequence == 1)
        try await ClusterTests.settle(nodes, log)
        for node in nodes { #expect(node.messages(channelId: "ops").map(\.messageId) == ["once"]) }
    }

    /// `dropAfterNext`: the request runs in full, then the connection drops before its answer.
    @Test func dropAfterNextRunsTheRequestThenDropsTheConnection() async throws {
        let server = ChatServer()
        var (alice, _) = try await Self.pair(server)
        server.faults.dropAfterNext(userId: "alice")
        await #expect(throws: ChatError.self) { try await alice.send(Self.draft("lost answer", id: "x-1")) }
        #expect(server.messages(channelId: "ops").map(\.messageId) == ["x-1"], "the work was done")
        var sawDrop = false
        while let element = await alice.next() {
            if case .disconnected(.connectionLost) = element {
                sawDrop = true
                break
            }
        }
        #expect(sawDrop)
        try await alice.connect(resumingAfter: server.lastEventSequence(userId: "alice"))
        #expect(try Self.message(try await alice.send(Self.draft("lost answer", id: "x-1"))).sequence == 1)
        #expect(server.messages(channelId: "ops").count == 1)
    }
}
