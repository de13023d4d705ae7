import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct LiveChannelListTests {
    let fixture = ChatFixture()

    func makeCommunity(_ id: String, by client: ChatClient, tags: [String] = [], members: [String] = []) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setTags(tags)
        builder.setUserIds(members)
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    @Test func everyQueryBuilderSelectsItsTypes() async throws {
        let admin = try await fixture.client("admin")
        let alice = try await fixture.client("alice")
        try await fixture.server.registerUser(id: "admin", displayName: "Admin", isAdmin: true)
        for type in [ChannelType.standard, .private, .broadcast, .community, .live] {
            try await fixture.server.createChannel(
                type: type, channelId: type.rawValue, displayName: nil, userIds: ["alice"])
        }
        let conversation = ConversationChannelBuilder()
        conversation.setUserIds(["admin"])
        let dm = try await ChannelRepository(client: alice).createChannel(with: conversation)
        _ = admin

        let channels = ChannelRepository(client: alice).getChannels()
        let cases: [(PreparedChannelQuery, Set<String>)] = [
            (
                channels.byTypes(with: ByTypesChannelQueryBuilder(types: [.standard, .private])),
                ["standard", "private"]
            ),
            (channels.standardType(with: StandardChannelQueryBuilder()), ["standard"]),
            (channels.privateType(with: PrivateChannelQueryBuilder()), ["private"]),
            (channels.broadcast(with: BroadcastChannelQueryBuilder()), ["broadcast"]),
            (
                channels.conversation(with: ConversationChannelQueryBuilder(includingTags: nil, excludingTags: nil)),
                [dm.channelId]
            ),
            (channels.liveType(with: LiveChannelQueryBuilder()), ["live"]),
            (channels.communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)), ["community"]),
        ]
        for (prepared, expected) in cases {
            let list = await prepared.query().loaded()
            #expect(Set(list.snapshots.map(\.channelId)) == expected, "\(prepared.listQuery)")
            #expect(list.dataStatus == .fresh)
        }
    }

    @Test func tagsAndDeletedChannels() async throws {
        let alice = try await fixture.client("alice")
        try await makeCommunity("a", by: alice, tags: ["red"])
        try await makeCommunity("b", by: alice, tags: ["red", "blue"])
        try await makeCommunity("c", by: alice, tags: ["green"])
        try await fixture.server.deleteChannel("c")
        let channels = ChannelRepository(client: alice).getChannels()
        let red = await channels.communityType(with: CommunityChannelQueryBuilder(includingTags: ["red"])).query()
            .loaded()
        #expect(Set(red.snapshots.map(\.channelId)) == ["a", "b"])
        let notBlue = await channels.communityType(
            with: CommunityChannelQueryBuilder(includingTags: ["red"], excludingTags: ["blue"])
        ).query().loaded()
        #expect(notBlue.snapshots.map(\.channelId) == ["a"])
        let all = await channels.communityType(with: CommunityChannelQueryBuilder()).query().loaded()
        #expect(Set(all.snapshots.map(\.channelId)) == ["a", "b"])
        let withDeleted = await channels.communityType(with: CommunityChannelQueryBuilder(includeDeleted: true)).query()
            .loaded()
        #expect(Set(withDeleted.snapshots.map(\.channelId)) == ["a", "b", "c"])
    }

    @Test func channelMovesBetweenMemberAndNonMemberListsAsYouJoinAndLeave() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeCommunity("club", by: alice)
        let repository = ChannelRepository(client: bob)
        let mine = await repository.getChannels().communityType(
            with: CommunityChannelQueryBuilder(filter: .userIsMember)
        ).query().loaded()
        let others = await repository.getChannels().communityType(
            with: CommunityChannelQueryBuilder(filter: .userIsNotMember)
        ).query().loaded()
        #expect(mine.snapshots.isEmpty)
        #expect(others.snapshots.map(\.channelId) == ["club"])

        _ = try await repository.joinChannel(channelId: "club")
        #expect(mine.snapshots.map(\.channelId) == ["club"])
        #expect(others.snapshots.isEmpty)

        try await repository.leaveChannel("club")
        #expect(mine.snapshots.isEmpty)
        #expect(others.snapshots.map(\.channelId) == ["club"])
    }

    /// A list created while the cache already holds some matching channels still asks the
    /// server for its first page from the top: channels that sort before the cached ones appear.
    @Test func prefilledListStillLoadsFromTheTop() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        for id in ["a", "b", "c", "d"] { try await makeCommunity(id, by: alice) }
        let repository = ChannelRepository(client: bob)
        _ = await repository.getChannel("d").loaded()  // only "d" is cached
        let query = ChannelListQuery(sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 2)
        let list = await repository.getChannels(query: query).loaded()
        #expect(list.snapshots.map(\.channelId) == ["a", "b"])
        list.nextPage()
        await list.loaded()
        #expect(list.snapshots.map(\.channelId) == ["a", "b", "c", "d"])
    }

    @Test func channelsCreatedByOthersAutoLink() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let query = ChannelListQuery(
            filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)])
        let list = await ChannelRepository(client: bob).getChannels(query: query).loaded()
        #expect(list.snapshots.isEmpty)
        try await makeCommunity("with-bob", by: alice, members: ["bob"])
        try await makeCommunity("without-bob", by: alice)
        await bob.synchronize()
        #expect(list.snapshots.map(\.channelId) == ["with-bob"])
    }

    /// Paging through 100 channels while other users post in them (which re-sorts the list):
    /// every channel is seen, none twice.
    @Test func paginationWhileTheListMovesHasNoGapsOrDuplicates() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let ids = (0..<100).map { String(format: "ch%03d", $0) }
        for id in ids { try await makeCommunity(id, by: alice, members: ["bob"]) }
        let query = ChannelListQuery(
            filter: .equal(.joined, to: true), sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 10)
        let list = await ChannelRepository(client: bob).getChannels(query: query).loaded()
        var generator = SeededGenerator(seed: 11)
        let messages = MessagePoster(server: fixture.server)
        var seenEver: Set<String> = []
        while true {
            let snapshot = list.snapshots.map(\.channelId)
            #expect(Set(snapshot).count == snapshot.count, "duplicates in \(snapshot)")
            let channels = list.snapshots
            #expect(channels == channels.sorted { query.areInIncreasingOrder($0, $1) }, "out of order")
            seenEver.formUnion(snapshot)
            // Someone posts in a random channel, moving it to the top.
            try await messages.post(in: ids.randomElement(using: &generator)!, as: "alice")
            await bob.synchronize()
            guard list.hasNext else { break }
            list.nextPage()
            await list.loaded()
        }
        seenEver.formUnion(list.snapshots.map(\.channelId))
        #expect(seenEver == Set(ids))
        #expect(list.count == 100)
        let final = list.snapshots
        #expect(final == final.sorted { query.areInIncreasingOrder($0, $1) })
    }

    @Test func reconnectAfterDroppedConnectionLosesNothing() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let list = await ChannelRepository(client: bob).getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)])
        ).loaded()
        try await makeCommunity("before", by: alice, members: ["bob"])
        #expect(fixture.server.faults.dropConnection(userId: "bob", deviceId: "phone"))
        try await makeCommunity("during", by: alice, members: ["bob"])
        _ = await bob.connectionState.value { $0 == .connected }
        try await makeCommunity("after", by: alice, members: ["bob"])
        await bob.synchronize()
        #expect(list.snapshots.map(\.channelId) == ["before", "during", "after"])
    }

    /// Reconnecting after more events were missed than the server keeps: it answers
    /// "resync required" and the client reloads every live list and object.
    @Test func resyncWhenTheServerCannotReplay() async throws {
        let fixture = ChatFixture(server: ChatServer(configuration: ServerConfiguration(eventLogCapacity: 2)))
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeCommunity("first", by: alice, members: ["bob"])
        let repository = ChannelRepository(client: bob)
        let list = await repository.getChannels(
            query: ChannelListQuery(
                filter: .containMembers(userIds: ["bob"]), sort: [Sorting(key: .createdAt, isAscending: true)])
        ).loaded()
        let first = await repository.getChannel("first").loaded()
        await bob.disconnect()
        for id in ["m1", "m2", "m3", "m4"] { try await makeCommunity(id, by: alice, members: ["bob"]) }
        let updater = ChannelUpdateBuilder(channelId: "first", client: alice)
        updater.setDisplayName("Renamed while away")
        _ = try await ChannelRepository(client: alice).updateChannel(with: updater)
        _ = try await alice.transport.send(.sendMessage(MessageDraft(channelId: "m4", text: "hi")))

        try await bob.connect()  // the server no longer holds what bob missed
        await bob.synchronize()
        #expect(list.snapshots.map(\.channelId) == ["first", "m1", "m2", "m3", "m4"])
        #expect(first.snapshot?.displayName == "Renamed while away")
        #expect(repository.totalUnreadCount == 1)
        #expect(bob.connectionState.snapshot == .connected)
    }

    @Test func duplicatedEventsAreAppliedOnce() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let list = await ChannelRepository(client: bob).getChannels(
            query: ChannelListQuery(filter: .containMembers(userIds: ["bob"]))
        ).loaded()
        let changes = Recorder<CollectionChange>()
        let token = list.observe(on: .synchronous) { _, change, _ in
            if let change, !change.isEmpty { changes.append(change) }
        }
        fixture.server.faults.duplicateNextEvents(5, userId: "bob")
        try await makeCommunity("once", by: alice, members: ["bob"])
        await bob.synchronize()
        #expect(list.snapshots.map(\.channelId) == ["once"])
        #expect(changes.count == 1)
        token.invalidate()
    }

    /// Over a random stream of operations by several users, every change delivered to an
    /// observer applies cleanly to the snapshot it saw before, and the list ends equal to the
    /// server's answer to the same query.
    @Test func deliveredChangesAlwaysApplyCleanly() async throws {
        let users = ["u0", "u1", "u2"]
        var clients: [ChatClient] = []
        for user in users { clients.append(try await fixture.client(user)) }
        let observer = clients[0]
        let query = ChannelListQuery(
            filter: .equal(.joined, to: true), sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 100)
        let list = await ChannelRepository(client: observer).getChannels(query: query).loaded()
        let failures = Recorder<String>()
        let previous = Recorder<[Channel]>()
        previous.append(list.snapshots)
        let token = list.observe(on: .synchronous) { collection, change, _ in
            guard let change, let before = previous.last else { return }
            let after = collection.snapshots
            if !change.isValid(oldCount: before.count, newCount: after.count)
                || change.applying(to: before, new: after) != after
            {
                failures.append("\(change) does not lead from \(before.count) to \(after.count)")
            }
            previous.append(after)
        }
        var generator = SeededGenerator(seed: 99)
        let poster = MessagePoster(server: fixture.server)
        var created: [String] = []
        for step in 0..<80 {
            let actor = Int.random(in: 0..<users.count, using: &generator)
            let repository = ChannelRepository(client: clients[actor])
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let id = "r\(step)"
                try await makeCommunity(id, by: clients[actor], members: Bool.random(using: &generator) ? ["u0"] : [])
                created.append(id)
            case 1 where !created.isEmpty:
                _ = try? await repository.joinChannel(channelId: created.randomElement(using: &generator)!)
            case 2 where !created.isEmpty:
                try? await repository.leaveChannel(created.randomElement(using: &generator)!)
            default:
                if let id = created.randomElement(using: &generator) {
                    try? await poster.post(in: id, as: users[actor])
                }
            }
        }
        await observer.synchronize()
        #expect(failures.values.isEmpty, "\(failures.values.prefix(3))")
        let expected = try await observer.transport.send(.queryChannels(query, after: nil)).channelsValue?.items
        #expect(list.snapshots.map(\.channelId) == expected?.map(\.channelId))
        token.invalidate()
    }
}

/// Posts messages through a user's own connection (so the server's rules apply).
struct MessagePoster {
    let server: ChatServer

    func post(in channelId: String, as userId: String) async throws {
        let transport = server.connection(userId: userId, deviceId: "poster")
        _ = try await transport.connect(resumingAfter: nil)
        _ = try await transport.send(.sendMessage(MessageDraft(channelId: channelId, text: "hi")))
        await transport.disconnect()
    }
}
