import ChatServer
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for channel queries: the seven query builders, tag
/// constraints and deleted channels, `ChannelListQuery` filters and sorts, and how missing values
/// and ties sort. Snippet by snippet, written as a user's app would write it: only
/// `import LiveChannels` and `import ChatServer`, no `@testable`. Every name, label and shape
/// pinned there must compile here, and every behaviour stated there is asserted. The helpers the
/// contract suites share are in `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct ChannelQueryContractTests {

    @Test func theSevenQueryBuildersWithTheSeedsLabels() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        for type in [ChannelType.standard, .private, .broadcast] {
            try await server.createChannel(type: type, channelId: type.rawValue, displayName: nil, userIds: ["alice"])
        }
        let repository = ChannelRepository(client: alice)
        let community = CommunityChannelBuilder()
        community.setId("community")
        community.setTags(["a"])
        _ = try await repository.createChannel(with: community)
        let bobs = CommunityChannelBuilder()
        bobs.setId("bobs")
        _ = try await ChannelRepository(client: bob).createChannel(with: bobs)
        let live = LiveChannelBuilder()
        live.setId("live")
        _ = try await repository.createChannel(with: live)
        let conversation = ConversationChannelBuilder()
        conversation.setId("conversation")
        conversation.setUserIds(["bob"])
        let conversationId = try await repository.createChannel(with: conversation).channelId

        let builder = ByTypesChannelQueryBuilder(
            types: [.standard, .private],
            channelQueryFilter: .all, includingTags: ["a"], excludingTags: ["b"], includeDeleted: false)
        let channels: LiveCollection<Channel> = repository.getChannels().byTypes(with: builder).query()
        #expect(try await loadedIds(channels) == [])  // none of them is tagged "a"
        let byTypes = ByTypesChannelQueryBuilder(
            types: Set<ChannelType>([.standard, .private]), channelQueryFilter: .all, includingTags: nil,
            excludingTags: nil, includeDeleted: false)
        #expect(
            try await loadedIds(repository.getChannels().byTypes(with: byTypes).query()) == ["private", "standard"])

        let standard = StandardChannelQueryBuilder(
            channelQueryFilter: .userIsMember, includingTags: nil, excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().standardType(with: standard).query()) == ["standard"])
        let privateBuilder = PrivateChannelQueryBuilder(includingTags: nil, excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().privateType(with: privateBuilder).query()) == ["private"])
        let broadcast = BroadcastChannelQueryBuilder(
            channelQueryFilter: .all, includingTags: [], excludingTags: [], includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().broadcast(with: broadcast).query()) == ["broadcast"])
        let conversations = ConversationChannelQueryBuilder(includingTags: nil, excludingTags: nil)
        #expect(
            try await loadedIds(repository.getChannels().conversation(with: conversations).query()) == [conversationId])
        let conversationsAgain = ConversationChannelQueryBuilder(
            includingTags: [], excludingTags: [], includeDeleted: false)
        #expect(
            try await loadedIds(repository.getChannels().conversation(with: conversationsAgain).query()) == [
                conversationId
            ])
        let liveBuilder = LiveChannelQueryBuilder(includingTags: nil, excludingTags: nil, includeDeleted: false)
        #expect(try await loadedIds(repository.getChannels().liveType(with: liveBuilder).query()) == ["live"])

        // ChannelQueryFilter: .all, .userIsMember, .userIsNotMember.
        let filters: [ChannelQueryFilter: Set<String>] = [
            .all: ["bobs", "community"], .userIsMember: ["community"], .userIsNotMember: ["bobs"],
        ]
        for (filter, expected) in filters {
            let query = repository.getChannels().communityType(
                with: CommunityChannelQueryBuilder(
                    filter: filter, includingTags: nil, excludingTags: nil, includeDeleted: false)
            ).query()
            #expect(try await loadedIds(query) == expected, "\(filter)")
        }
        // The README's short form (defaults for the rest).
        let mine = repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember))
            .query()
        #expect(try await loadedIds(mine) == ["community"])
    }

    @Test func tagConstraintsAndDeletedChannels() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        let tagged: [String: [String]] = ["t-a": ["a"], "t-b": ["b"], "t-ab": ["a", "b"], "t-none": []]
        for (id, tags) in tagged {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setTags(tags)
            _ = try await repository.createChannel(with: builder)
        }
        func list(_ including: [String]?, _ excluding: [String]?, deleted: Bool = false) async throws -> Set<String> {
            try await loadedIds(
                repository.getChannels().communityType(
                    with: CommunityChannelQueryBuilder(
                        filter: .all, includingTags: including, excludingTags: excluding, includeDeleted: deleted)
                ).query())
        }
        let all: Set<String> = ["t-a", "t-b", "t-ab", "t-none"]
        #expect(try await list(nil, nil) == all)
        #expect(try await list([], []) == all)  // empty = no constraint
        #expect(try await list(["a", "b"], nil) == ["t-a", "t-b", "t-ab"])  // any of
        #expect(try await list(nil, ["a", "b"]) == ["t-none"])  // none of
        #expect(try await list(["a"], ["b"]) == ["t-a"])

        try await server.deleteChannel("t-none")
        // includeDeleted defaults to false.
        let byDefault = try await loadedIds(
            repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query())
        #expect(byDefault == ["t-a", "t-b", "t-ab"])
        #expect(try await list(nil, nil, deleted: false) == ["t-a", "t-b", "t-ab"])
        #expect(try await list(nil, nil, deleted: true) == all)
        let byTypes = ByTypesChannelQueryBuilder(
            types: [.community], channelQueryFilter: .all, includingTags: nil, excludingTags: nil)
        #expect(try await loadedIds(repository.getChannels().byTypes(with: byTypes).query()) == ["t-a", "t-b", "t-ab"])
    }

    @Test func channelListQuerySnippetFiltersAndSorts() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        for (id, state, client) in [
            ("la1", "LA", alice), ("la2", "LA", alice), ("ny", "NY", alice), ("la-bob", "LA", bob),
        ] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setMetadata(["state": .string(state)])
            _ = try await ChannelRepository(client: client).createChannel(with: builder)
        }
        let liveBuilder = LiveChannelBuilder()
        liveBuilder.setId("la-live")
        liveBuilder.setMetadata(["state": "LA"])
        _ = try await repository.createChannel(with: liveBuilder)
        _ = try await MessageRepository(client: alice).sendMessage(channelId: "la1", text: "hi", mentionedUserIds: [])

        let query = ChannelListQuery(
            filter: .and([
                .containMembers(userIds: ["alice"]), .equal(.type, to: .community),
                .equal("state", to: "LA"),
            ]),  // a string key is a metadata field
            sort: [Sorting(key: .lastMessageAt, isAscending: false)],
            pageSize: 20)
        let list: LiveCollection<Channel> = repository.getChannels(query: query)
        for await update in list.updates where update.loadingStatus == .loaded { break }
        #expect(list.error == nil)
        // la1 has a message; la2 has none (missing: smallest, so last when descending).
        #expect(ids(list.snapshots) == ["la1", "la2"])

        // The live list follows changes: a message in la2 moves it first.
        _ = try await MessageRepository(client: alice).sendMessage(channelId: "la2", text: "hi", mentionedUserIds: [])
        for await update in list.updates where ids(update.snapshots) == ["la2", "la1"] { break }

        for key in [ChannelSortingKey.default, .createdAt, .updatedAt, .lastMessageAt, .memberCount] {
            for ascending in [true, false] {
                let sorted = repository.getChannels(
                    query: ChannelListQuery(
                        filter: .equal(.type, to: .community), sort: [Sorting(key: key, isAscending: ascending)],
                        pageSize: 20))
                for await update in sorted.updates
                where update.loadingStatus != .loading && update.dataStatus != .notExist {
                    break
                }
                #expect(sorted.error == nil, "\(key)")
                #expect(Set(ids(sorted.snapshots)) == ["la1", "la2", "ny", "la-bob"], "\(key)")
            }
        }
    }

    @Test func missingValuesSortSmallestAndTiesBreakByChannelId() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: alice)
        for (id, score) in [("c", nil), ("a", 2), ("d", nil), ("b", 1), ("e", 1)] as [(String, Int?)] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            if let score { builder.setMetadata(["score": .number(Double(score))]) }
            _ = try await repository.createChannel(with: builder)
        }
        _ = try await MessageRepository(client: alice).sendMessage(channelId: "b", text: "hi", mentionedUserIds: [])
        func sorted(_ key: ChannelSortingKey, ascending: Bool) async throws -> [String] {
            let list = repository.getChannels(
                query: ChannelListQuery(
                    filter: .equal(.type, to: .community), sort: [Sorting(key: key, isAscending: ascending)],
                    pageSize: 20))
            for await update in list.updates where update.loadingStatus == .loaded && update.snapshots.count == 5 {
                break
            }
            return ids(list.snapshots)
        }
        // Absent metadata is smaller than every value; ties (nil/nil, 1/1) by channelId ascending.
        #expect(try await sorted(.metadata("score"), ascending: true) == ["c", "d", "b", "e", "a"])
        #expect(try await sorted(.metadata("score"), ascending: false) == ["a", "b", "e", "c", "d"])
        // nil lastMessageAt is smaller than every date.
        #expect(try await sorted(.lastMessageAt, ascending: true) == ["a", "c", "d", "e", "b"])
        #expect(try await sorted(.lastMessageAt, ascending: false) == ["b", "a", "c", "d", "e"])
        // updatedAt: the channel updated last comes first when descending.
        let updater = ChannelUpdateBuilder(channelId: "c", client: alice)
        updater.setDisplayName("C")
        _ = try await repository.updateChannel(with: updater)
        #expect(try await sorted(.updatedAt, ascending: false).first == "c")
        #expect(try await sorted(.createdAt, ascending: true) == ["c", "a", "d", "b", "e"])
        #expect(try await sorted(.default, ascending: false).first == "b")  // b has the only message
        // Equal member counts: channelId ascending whatever the direction.
        #expect(try await sorted(.memberCount, ascending: false) == ["a", "b", "c", "d", "e"])
    }
}

// MARK: - Helpers

/// The ids of a channel list once its first page is loaded.
private func loadedIds(_ list: LiveCollection<Channel>) async throws -> Set<String> {
    for await update in list.updates where update.loadingStatus != .loading && update.dataStatus != .notExist { break }
    if let error = list.error { throw error }
    return Set(ids(list.snapshots))
}
