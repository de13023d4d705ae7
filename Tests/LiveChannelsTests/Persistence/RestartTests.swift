import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import LiveCore
import Testing

/// A client restarted on the same file shows what it stored at once (`.local`), offline too,
/// and converges to the server once it connects.
@Suite(.timeLimit(.minutes(1))) struct RestartTests {
    @Test func restartShowsLocalDataOfflineThenConvergesOnline() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        let bob = ChatClient(
            transport: server.connection(userId: "bob", deviceId: "laptop"), reconnectPolicy: .immediate)
        try await bob.connect()

        // First run: Alice stores her channels, a message list and her unread state.
        let firstSequence: Int
        do {
            let alice = server.persistentClient("alice", file: file)
            try await alice.connect()
            try await createChannels(["a1", "a2", "a3"], client: alice)
            _ = try await ChannelRepository(client: bob).joinChannel(channelId: "a2")
            let messages = MessageRepository(client: bob)
            _ = try await messages.sendMessage(channelId: "a2", text: "hello", mentionedUserIds: [])
            _ = try await messages.sendMessage(channelId: "a2", text: "still there?", mentionedUserIds: [])
            await alice.synchronize()
            let list = await ChannelRepository(client: alice).getChannels(query: joinedQuery).loaded()
            #expect(list.snapshots.map(\.channelId) == ["a1", "a2", "a3"])
            let thread = await MessageRepository(client: alice).getMessages(channelId: "a2").loaded()
            #expect(thread.snapshots.map(\.text) == ["hello", "still there?"])
            firstSequence = await alice.sync.appliedSequence
            await alice.disconnect()
            await alice.flushPersistence()
            await alice.closePersistence()
        }

        // Meanwhile Bob renames a channel and writes again.
        _ = try await ChannelRepository(client: bob).joinChannel(channelId: "a1")
        _ = try await MessageRepository(client: bob).sendMessage(channelId: "a1", text: "hey", mentionedUserIds: [])
        _ = try await MessageRepository(client: bob).sendMessage(channelId: "a2", text: "hello?", mentionedUserIds: [])

        // Second run, offline: the stored data shows at once.
        server.faults.failNextConnects(1, userId: "alice")
        let alice = server.persistentClient("alice", file: file)
        let repository = ChannelRepository(client: alice)
        let list = repository.getChannels(query: joinedQuery)
        #expect(list.dataStatus == .local)
        #expect(list.snapshots.map(\.channelId) == ["a1", "a2", "a3"])
        #expect(list.snapshots.first?.displayName == "A1")
        let thread = MessageRepository(client: alice).getMessages(channelId: "a2")
        #expect(thread.dataStatus == .local)
        #expect(thread.snapshots.map(\.text) == ["hello", "still there?"])
        await #expect(throws: ChatError.self) { try await alice.connect() }
        // Loading failed, and the stored data stays readable and `.local`.
        await list.loaded()
        #expect(list.dataStatus == .local)
        #expect(list.snapshots.count == 3)
        let channel = repository.getChannel("a2")
        #expect(channel.dataStatus == .local)
        #expect(channel.snapshot?.unreadCount == 2)
        #expect(repository.totalUnreadCount == 2)

        // Online: it resumes after the stored sequence and converges to the server.
        try await alice.connect()
        await alice.synchronize()
        #expect(await alice.sync.appliedSequence > firstSequence)
        _ = await list.updates.first { $0.dataStatus == .fresh && $0.loadingStatus == .loaded }
        _ = await thread.updates.first { $0.dataStatus == .fresh && $0.loadingStatus == .loaded }
        let truth = ChatClient(transport: server.connection(userId: "alice", deviceId: "reference"))
        try await truth.connect()
        let expected = await ChannelRepository(client: truth).getChannels(query: joinedQuery).loaded()
        #expect(list.snapshots == expected.snapshots)
        #expect(list.snapshots.first?.memberCount == 2)
        #expect(thread.snapshots.map(\.text) == ["hello", "still there?", "hello?"])
        #expect(repository.totalUnreadCount == 4)
        await alice.closePersistence()
    }

    @Test func aStoredSequenceTheServerCannotReplayResyncs() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        // The server keeps 4 events per device: more than that missed cannot be replayed.
        let server = ChatServer(configuration: ServerConfiguration(eventLogCapacity: 4))
        do {
            let alice = server.persistentClient("alice", file: file)
            try await alice.connect()
            try await createChannels(["old"], client: alice)
            _ = await ChannelRepository(client: alice).getChannels(query: joinedQuery).loaded()
            await alice.disconnect()
            await alice.closePersistence()
        }
        let other = ChatClient(transport: server.connection(userId: "alice", deviceId: "other"))
        try await other.connect()
        try await createChannels(["n1", "n2", "n3", "n4", "n5"], client: other)
        try await ChannelRepository(client: other).leaveChannel("old")

        let alice = server.persistentClient("alice", file: file)
        let list = ChannelRepository(client: alice).getChannels(query: joinedQuery)
        #expect(list.dataStatus == .local)
        #expect(list.snapshots.map(\.channelId) == ["old"])
        try await alice.connect()
        await alice.synchronize()
        _ = await list.updates.first { $0.dataStatus == .fresh && $0.loadingStatus == .loaded }
        #expect(list.snapshots.map(\.channelId) == ["n1", "n2", "n3", "n4", "n5"])
        await alice.closePersistence()
    }

    @Test func inMemoryClientsStoreNothing() async throws {
        let server = ChatServer()
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        #expect(client.store == nil)
        try await client.connect()
        try await client.clearPersistence()
    }
}
