import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import LiveCore
import Locking
import Testing

/// A server's history has an identity (`ConnectResult.epoch`): a client that reconnects to a
/// server whose state started over (an in-memory server restarted) or that restarts from its
/// cache file against such a server shows only the new history — its lists, its objects, its
/// messages and its file — however high the versions it had cached.
@Suite(.timeLimit(.minutes(1))) struct ServerEpochTests {
    /// A connector to whichever server is current: "restarting" the server is replacing it.
    final class RestartableServer: WebSocketConnector, Sendable {
        private let current: Lock<ChatServer>
        init(_ server: ChatServer) { current = Lock(server) }
        var server: ChatServer { current.withLock { $0 } }

        /// Starts a new, empty in-memory server and closes the old one: every connection drops.
        func restart() async -> ChatServer {
            let fresh = ChatServer()
            let old = current.withLock { current in
                defer { current = fresh }
                return current
            }
            await old.close()
            return fresh
        }

        func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
            try await InMemoryWireConnector(server: server).connect(request)
        }
    }

    private func client(_ userId: String, _ connector: RestartableServer, file: URL? = nil) -> ChatClient {
        let transport = WebSocketTransport(
            url: URL(string: "ws://in-memory/v1/connect")!, userId: userId, deviceId: "phone",
            token: { "dev:\(userId)" }, connector: connector)
        return ChatClient(
            transport: transport, persistence: file.map { .sqlite($0) } ?? .inMemory, reconnectPolicy: .immediate)
    }

    /// Waits until every client is connected to `server` (its user online there).
    private func reconnected(_ userIds: [String], _ clients: [ChatClient], to server: ChatServer) async -> Bool {
        await eventually {
            userIds.allSatisfy { server.user($0)?.isOnline == true }
                && clients.allSatisfy { $0.connectionState.snapshot == .connected }
        }
    }

    private func createGeneral(by client: ChatClient, with members: [String]) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId("general")
        builder.setUserIds(members)
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    private func say(_ text: String, by client: ChatClient) async throws {
        _ = try await MessageRepository(client: client).sendMessage(
            channelId: "general", text: text, mentionedUserIds: [])
    }

    @Test func everyServerConnectionTellsItsEpochWhichStaysWithItsStore() async throws {
        let first = ChatServer()
        let second = ChatServer()
        #expect(first.epoch.count == 16 && second.epoch.count == 16)
        #expect(first.epoch != second.epoch)
        let result = try await first.connection(userId: "ann").connect(resumingAfter: nil)
        #expect(result.epoch == first.epoch)

        let directory = TemporaryDirectory()
        let file = directory.file()
        let stored = try ChatServer(storage: .sqlite(file))
        let epoch = stored.epoch
        await stored.close()
        let reopened = try ChatServer(storage: .sqlite(file))
        #expect(reopened.epoch == epoch)
        await reopened.close()
        let other = try ChatServer(storage: .sqlite(directory.file("other.sqlite")))
        #expect(other.epoch != epoch)
        await other.close()

        // A restored backup: the operator starts a new history, which later starts keep.
        var restored = ServerConfiguration()
        restored.startsNewEpoch = true
        let renewed = try ChatServer(configuration: restored, storage: .sqlite(file))
        let newEpoch = renewed.epoch
        #expect(newEpoch != epoch && newEpoch.count == 16)
        await renewed.close()
        let after = try ChatServer(storage: .sqlite(file))
        #expect(after.epoch == newEpoch)
        await after.close()
    }

    /// The reproduction: two clients chatting, the in-memory server restarted; both
    /// reconnect by themselves and then show only what the new server holds.
    @Test func clientsOfARestartedServerShowOnlyTheNewHistory() async throws {
        let connector = RestartableServer(ChatServer())
        let alice = client("alice", connector)
        let bob = client("bob", connector)
        try await alice.connect()
        try await bob.connect()
        try await createGeneral(by: alice, with: ["bob"])
        for text in ["old 1", "old 2", "old 3", "old 4"] { try await say(text, by: alice) }
        try await say("old from bob", by: bob)
        let aliceMessages = MessageRepository(client: alice).getMessages(channelId: "general")
        let bobMessages = MessageRepository(client: bob).getMessages(channelId: "general")
        let bobChannels = ChannelRepository(client: bob).getChannels(
            query: ChannelListQuery(filter: .equal(.joined, to: true)))
        let bobGeneral = ChannelRepository(client: bob).getChannel("general")
        await bob.synchronize()
        #expect(await eventually { bobMessages.snapshots.count == 5 && aliceMessages.snapshots.count == 5 })
        let oldVersion = bobGeneral.snapshot?.version ?? 0

        let server = await connector.restart()
        #expect(await reconnected(["alice", "bob"], [alice, bob], to: server))
        // The new history has no #general yet: nothing of the old one stays shown meanwhile.
        #expect(
            await eventually {
                aliceMessages.snapshots.isEmpty && bobMessages.snapshots.isEmpty && bobChannels.snapshots.isEmpty
            })
        try await createGeneral(by: alice, with: ["bob"])
        try await say("new", by: alice)
        try await say("new from bob", by: bob)
        await alice.synchronize()
        await bob.synchronize()

        let expected = ["new", "new from bob"]
        #expect(
            await eventually { bobMessages.snapshots.map(\.text) == expected }, "\(bobMessages.snapshots.map(\.text))")
        #expect(
            await eventually { aliceMessages.snapshots.map(\.text) == expected },
            "\(aliceMessages.snapshots.map(\.text))")
        #expect(bobChannels.snapshots.map(\.channelId) == ["general"])
        #expect(bobGeneral.snapshot?.lastSequence == 2)
        #expect(bobGeneral.snapshot.map { $0.version < oldVersion } == true, "the new history's value, though older")
        // A page read now (the history command) and the server agree.
        let history = await MessageRepository(client: alice).getMessages(channelId: "general").loaded()
        #expect(history.snapshots.map(\.text) == server.messages(channelId: "general").map(\.text))
        await alice.close()
        await bob.close()
    }

    /// A channel the new history does not have leaves every list, and a live object of it
    /// says it is not found.
    @Test func whatTheNewHistoryLacksIsDropped() async throws {
        let connector = RestartableServer(ChatServer())
        let alice = client("alice", connector)
        try await alice.connect()
        try await createGeneral(by: alice, with: [])
        let channels = ChannelRepository(client: alice).getChannels(
            query: ChannelListQuery(filter: .equal(.joined, to: true)))
        let general = ChannelRepository(client: alice).getChannel("general")
        #expect(await eventually { channels.snapshots.map(\.channelId) == ["general"] && general.snapshot != nil })

        let server = await connector.restart()
        #expect(await reconnected(["alice"], [alice], to: server))
        await alice.synchronize()
        #expect(await eventually { channels.snapshots.isEmpty }, "\(channels.snapshots.map(\.channelId))")
        #expect(await eventually { general.snapshot == nil && general.dataStatus == .error })
        await alice.close()
    }

    /// An app restarted from its cache file against a server that started over shows the new
    /// history once connected, and its file holds nothing of the old one.
    @Test func anAppRestartedFromItsFileAgainstANewServerDropsTheOldHistory() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let connector = RestartableServer(ChatServer())
        do {
            let alice = client("alice", connector, file: file)
            try await alice.connect()
            try await createGeneral(by: alice, with: [])
            for text in ["old 1", "old 2", "old 3"] { try await say(text, by: alice) }
            let messages = await MessageRepository(client: alice).getMessages(channelId: "general").loaded()
            #expect(messages.snapshots.count == 3)
            await alice.close()
        }
        let server = await connector.restart()
        try await server.createChannel(type: .community, channelId: "general", userIds: ["alice"])
        try await server.sendMessage(as: "alice", channelId: "general", text: "new")

        let alice = client("alice", connector, file: file)
        let messages = MessageRepository(client: alice).getMessages(channelId: "general")
        try await alice.connect()
        await alice.synchronize()
        #expect(await eventually { messages.snapshots.map(\.text) == ["new"] }, "\(messages.snapshots.map(\.text))")
        await alice.flushPersistence()
        let stored = await alice.store!.storedValues(Message.self)
        #expect(stored.map(\.text) == ["new"])
        await alice.close()
    }
}
