import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import LiveCore
import Locking
import Testing

/// Before `connect()`, live handles show what the cache file holds with `.local` — not
/// `.fresh`, which means "the server confirmed it" — and nothing is asked of the server; they
/// turn `.fresh` once the server answers after `connect()`.
@Suite(.timeLimit(.minutes(1))) struct BeforeConnectTests {
    /// `inner`, counting what is sent through it.
    static func counting(_ inner: any ChatTransport) -> (transport: InterceptingTransport, sent: Shared<Int>) {
        let sent = Shared(0)
        var hooks = InterceptingTransport.Hooks()
        hooks.beforeSend = { _ in sent.withLock { $0 += 1 } }
        return (InterceptingTransport(inner, hooks: hooks), sent)
    }

    @Test func handlesShowTheFileAsLocalUntilTheServerAnswers() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        try await storeChannels(["a1", "a2"], on: server, in: file)
        // Others write while alice is away: she has unread messages.
        _ = try await server.registerUser(id: "bob")
        try await server.addMembers(["bob"], to: "a1")
        try await server.sendMessage(as: "bob", channelId: "a1", text: "while you were away")

        let (transport, sent) = Self.counting(server.connection(userId: "alice", deviceId: "phone"))
        let alice = ChatClient(transport: transport, persistence: .sqlite(file), reconnectPolicy: .immediate)
        let channel = ChannelRepository(client: alice).getChannel("a2")
        let list = ChannelRepository(client: alice).getChannels(query: joinedQuery)
        let restored = await channel.value { $0 != nil }
        #expect(restored?.channelId == "a2")
        await alice.sync.restoration.wait()
        await alice.sync.finishCurrentWork()
        #expect(channel.snapshot != nil && channel.dataStatus == .local, "\(channel.dataStatus)")
        #expect(
            await eventually { list.snapshots.map(\.channelId) == ["a1", "a2"] }, "\(list.snapshots.map(\.channelId))")
        #expect(list.dataStatus == .local, "\(list.dataStatus)")
        #expect(sent.withLock { $0 } == 0, "a request went out before connect()")

        try await alice.connect()
        #expect(await eventually { channel.dataStatus == .fresh && list.dataStatus == .fresh })
        #expect(await eventually { list.snapshots.first?.unreadCount == 1 })
        await alice.close()
    }
}
