import ChatServer
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for setting up: a server, a client that connects and
/// disconnects, users and channels made from the server's console, and which types are not
/// actor-isolated. Snippet by snippet, written as a user's app would write it: only
/// `import LiveChannels` and `import ChatServer`, no `@testable`. Every name, label and shape
/// pinned there must compile here, and every behaviour stated there is asserted. The helpers the
/// contract suites share are in `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct SetupContractTests {

    @Test func setupSnippetConnectsAndDisconnects() async throws {
        let server = ChatServer()  // in memory
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        try await client.connect()
        let currentUserId: String = client.currentUserId
        #expect(currentUserId == "alice")
        await client.disconnect()  // async, non-throwing: no `try`

        // `connection(userId:deviceId:)` is synchronous, returns `any ChatTransport`, and
        // `deviceId` has a default.
        let transport: any ChatTransport = server.connection(userId: "dave")
        let dave = ChatClient(transport: transport)
        try await dave.connect()
        #expect(dave.currentUserId == "dave")
        await dave.disconnect()
    }

    @Test func usersAreRegisteredOnFirstConnect() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        _ = try await connectedClient(server, "dave")
        let builder = CommunityChannelBuilder()
        builder.setId("club")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let participation = ChannelParticipation(client: alice, channelId: "club")
        // "dave" connected once, so he is a user; "ghost" never did.
        try await participation.addMembers(["dave"])
        let error = await thrownChatError { try await participation.addMembers(["ghost"]) }
        guard case .invalidArgument = error else {
            Issue.record("adding an unknown user: expected invalidArgument, got \(String(describing: error))")
            return
        }
    }

    @Test func consoleRegistersUsersAndCreatesChannelsOfAnyType() async throws {
        let server = ChatServer()
        try await server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
        try await server.createChannel(
            type: .broadcast, channelId: "news",
            displayName: "News", userIds: ["alice", "bob"])  // any type
        let alice = try await connectedClient(server, "alice")
        let news = try await loadedValue(of: ChannelRepository(client: alice).getChannel("news"))
        #expect(news.type == .broadcast)
        #expect(news.displayName == "News")
        #expect(news.currentUserMembership == .member)
        #expect(news.memberCount == 2)

        // The registered admin may send to the broadcast channel; a plain member may not.
        let boss = try await connectedClient(server, "boss")
        _ = try await MessageRepository(client: boss).sendMessage(
            channelId: "news", text: "hello", mentionedUserIds: [])
        let bob = try await connectedClient(server, "bob")
        let error = await thrownChatError {
            _ = try await MessageRepository(client: bob).sendMessage(
                channelId: "news", text: "hi", mentionedUserIds: [])
        }
        guard case .forbidden = error else {
            Issue.record(
                "a member sending to a broadcast channel: expected forbidden, got \(String(describing: error))")
            return
        }

        // Any type: the console creates the types clients cannot.
        let repository = ChannelRepository(client: alice)
        for type in [ChannelType.standard, .private, .community, .live, .conversation] {
            let id = "console-\(type.rawValue)"
            try await server.createChannel(type: type, channelId: id, displayName: "C", userIds: ["alice", "bob"])
            let channel = try await loadedValue(of: repository.getChannel(id))
            #expect(channel.type == type, "console-created \(type)")
            #expect(channel.currentUserMembership == .member, "console-created \(type)")
        }
    }

    /// Not actor-isolated: everything below is called from a nonisolated synchronous function.
    @Test func serverClientRepositoriesBuildersAndHandlesAreNotActorIsolated() async throws {
        let made = Self.makeEverythingSynchronously()
        #expect(made.client.currentUserId == "erin")
        #expect(made.handle.snapshot == nil)
        #expect(made.list.count == 0)
    }

    private nonisolated static func makeEverythingSynchronously() -> (
        client: ChatClient, handle: LiveObject<Channel>, list: LiveCollection<Channel>
    ) {
        let server = ChatServer()
        let client = ChatClient(transport: server.connection(userId: "erin", deviceId: "phone"))
        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setDisplayName("Sync")
        let updater = ChannelUpdateBuilder(channelId: "x", client: client)
        updater.setDisplayName("y")
        _ = ChannelParticipation(client: client, channelId: "x")
        _ = ChannelModeration(client: client, channelId: "x")
        _ = MessageRepository(client: client)
        let list = repository.getChannels().communityType(with: CommunityChannelQueryBuilder(filter: .all)).query()
        return (client, repository.getChannel("x"), list)
    }
}
