import ChatServer
import LiveChannels
import Testing

/// The README's quick tour, as a test: it must compile and run as written.
@Suite(.timeLimit(.minutes(1))) struct ReadmeTourTests {
    @Test @MainActor func quickTourRuns() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "bob", displayName: "Bob")
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        try await client.connect()

        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setId("ops"); builder.setUserIds(["bob"]); builder.setDisplayName("Ops")
        builder.setTags(["ch-comm"]); builder.setMetadata(["sdk_type": "ios", "state": "LA"])
        let channelObject = repository.createChannel().community(with: builder)
        let token = channelObject.observe { channelObject, error in
            _ = (channelObject.snapshot?.displayName ?? "…", error.map { "\($0)" } ?? "")
        }

        let mine = repository.getChannels()
            .communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)).query()
        let query = ChannelListQuery(
            filter: .and([.containMembers(userIds: ["alice"]), .equal("state", to: "LA")]),
            sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20)
        let list = repository.getChannels(query: query)
        let listToken = list.observe { collection, change, error in
            guard let change else { return }
            _ = (collection.count, change.deletions, change.insertions, change.moves, error)
        }
        list.nextPage()

        for await update in mine.updates where update.snapshots.contains(where: { $0.channelId == "ops" }) {
            break
        }

        let updater = ChannelUpdateBuilder(channelId: "ops", client: client)
        updater.setMetadata(["hello": "world"])
        _ = try await repository.updateChannel(with: updater)
        let total: LiveObject<Int> = repository.getTotalUnreadCount()
        try await ChannelParticipation(client: client, channelId: "ops").startReading()
        _ = try await MessageRepository(client: client).sendMessage(channelId: "ops", text: "hi", mentionedUserIds: [])
        #expect(total.snapshot == 0)
        #expect(channelObject.snapshot?.metadata["hello"] == "world")

        token.invalidate(); listToken.invalidate()
        await client.disconnect()
    }
}
