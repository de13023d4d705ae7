import ChatServer
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for synchronous calls, live handles and the client's
/// lifetime: calls that return a live handle are synchronous, dropping a handle does not cancel its
/// request, and handles and repositories keep their client alive. Snippet by snippet, written as a
/// user's app would write it: only `import LiveChannels` and `import ChatServer`, no `@testable`.
/// Every name, label and shape pinned there must compile here, and every behaviour stated there is
/// asserted. The helpers the contract suites share are in `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct LiveHandleContractTests {

    /// Calls that return a live handle are synchronous, with no `async` overload under the same
    /// name and labels: from an `async` context, each compiles without `await` and without a
    /// type annotation steering overload resolution (an `async` overload would be preferred here
    /// and fail to compile without `await`).
    @Test func liveHandleCallsAreSynchronousFromAsyncCode() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        _ = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: client)
        let x: LiveObject<Channel> = repository.getChannel("id")
        let get = repository.getChannel("id")
        let join = repository.joinChannel("id")
        let community = CommunityChannelBuilder()
        let created = repository.createChannel().community(with: community)
        let liveCreated = repository.createChannel().live(with: LiveChannelBuilder())
        let conversationBuilder = ConversationChannelBuilder()
        conversationBuilder.setUserIds(["bob"])
        let conversation = repository.createChannel().conversation(with: conversationBuilder)
        let conversation2 = repository.createConversation(with: conversationBuilder)
        let updater = ChannelUpdateBuilder(channelId: "id", client: client)
        updater.setDisplayName("n")
        let updated = updater.update()
        let members = ChannelParticipation(client: client, channelId: "id").getMembers(
            filter: .all, sortBy: .firstCreated, roles: [])
        let queried = repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query()
        let listed = repository.getChannels(
            query: ChannelListQuery(
                filter: .equal(.type, to: .community), sort: [Sorting(key: .default, isAscending: false)], pageSize: 20)
        )
        let total = repository.getTotalUnreadCount()
        let messages = MessageRepository(client: client).getMessages(channelId: "id")
        let objects: [LiveObject<Channel>] = [x, get, join, created, liveCreated, conversation, conversation2, updated]
        let _: LiveCollection<ChannelMember> = members
        let _: LiveCollection<Channel> = queried
        let _: LiveCollection<Channel> = listed
        let _: LiveObject<Int> = total
        let _: LiveCollection<Message> = messages
        for object in objects {
            for await _ in object.values where object.loadingStatus != .loading { break }
        }
        #expect(created.snapshot?.type == .community)
        #expect(conversation.snapshot?.channelId == conversation2.snapshot?.channelId)
    }

    @Test func discardingTheHandleDoesNotCancelTheRequest() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let builder = CommunityChannelBuilder()
        builder.setId("lobby")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        do {
            // Everything dropped at once: handle, repository and client.
            let bob = try await connectedClient(server, "bob")
            _ = ChannelRepository(client: bob).joinChannel("lobby")
            let created = CommunityChannelBuilder()
            created.setId("made-by-bob")
            _ = ChannelRepository(client: bob).createChannel().community(with: created)
        }
        #expect(await eventually { server.members(channelId: "lobby").contains { $0.userId == "bob" } })
        #expect(await eventually { server.channel("made-by-bob") != nil })

        let updater = ChannelUpdateBuilder(channelId: "lobby", client: alice)
        updater.setDisplayName("Lobby")
        _ = updater.update()
        #expect(await eventually { server.channel("lobby")?.displayName == "Lobby" })
    }

    @Test func liveHandlesAndRepositoriesKeepTheirClientAlive() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let builder = CommunityChannelBuilder()
        builder.setId("room")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let makers: [(String, @Sendable (ChatClient) -> AnyObject)] = [
            ("repository", { ChannelRepository(client: $0) }),
            ("participation", { ChannelParticipation(client: $0, channelId: "room") }),
            ("moderation", { ChannelModeration(client: $0, channelId: "room") }),
            ("messages", { MessageRepository(client: $0) }),
            ("getChannel", { ChannelRepository(client: $0).getChannel("room") }),
            ("joinChannel", { ChannelRepository(client: $0).joinChannel("room") }),
            (
                "update",
                {
                    let updater = ChannelUpdateBuilder(channelId: "room", client: $0)
                    updater.setDisplayName("Room")
                    return updater.update()
                }
            ),
            (
                "query",
                {
                    ChannelRepository(client: $0).getChannels().communityType(
                        with: CommunityChannelQueryBuilder(filter: .all)
                    ).query()
                }
            ),
            (
                "getChannels",
                {
                    ChannelRepository(client: $0).getChannels(
                        query: ChannelListQuery(filter: .equal(.type, to: .community)))
                }
            ),
            (
                "getMembers",
                {
                    ChannelParticipation(client: $0, channelId: "room").getMembers(
                        filter: .all, sortBy: .firstCreated, roles: [])
                }
            ),
            ("getMessages", { MessageRepository(client: $0).getMessages(channelId: "room") }),
            ("getTotalUnreadCount", { ChannelRepository(client: $0).getTotalUnreadCount() }),
        ]
        for (index, (name, make)) in makers.enumerated() {
            weak var weakClient: ChatClient?
            var handle: AnyObject?
            do {
                let client = try await connectedClient(server, "alice", deviceId: "device-\(index)")
                weakClient = client
                handle = make(client)
            }
            // Once the handle's own request is answered, only the handle holds the client.
            #expect(await eventually { requestSettled(handle) }, "\(name) settles")
            #expect(weakClient != nil, "\(name) keeps its client alive")
            withExtendedLifetime(handle) {}
            handle = nil
            #expect(await eventually { weakClient == nil }, "\(name): nothing else keeps the client")
        }

        // A handle whose client is otherwise gone keeps following the channel.
        var object: LiveObject<Channel>?
        do {
            let client = try await connectedClient(server, "alice", deviceId: "last")
            object = ChannelRepository(client: client).getChannel("room")
        }
        let handle = try #require(object)
        _ = try await loadedValue(of: handle)
        let updater = ChannelUpdateBuilder(channelId: "room", client: alice)
        updater.setDisplayName("Followed")
        _ = try await ChannelRepository(client: alice).updateChannel(with: updater)
        for await value in handle.values where value?.displayName == "Followed" { break }
        object = nil
    }
}

// MARK: - Helpers

/// Whether a live handle's request has been answered (repositories have none).
private func requestSettled(_ handle: AnyObject?) -> Bool {
    switch handle {
    case let object as LiveObject<Channel>: object.loadingStatus != .loading
    case let object as LiveObject<Int>: object.loadingStatus != .loading
    case let list as LiveCollection<Channel>: list.loadingStatus != .loading
    case let list as LiveCollection<ChannelMember>: list.loadingStatus != .loading
    case let list as LiveCollection<Message>: list.loadingStatus != .loading
    default: true
    }
}
