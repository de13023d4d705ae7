import ChatServer
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for errors: every `ChatError` case, reached through
/// the API, and its description; a server that cannot be reached. Snippet by snippet, written as a
/// user's app would write it: only `import LiveChannels` and `import ChatServer`, no `@testable`.
/// Every name, label and shape pinned there must compile here, and every behaviour stated there is
/// asserted. The helpers the contract suites share are in `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct ErrorContractTests {

    @Test func chatErrorCasesAndDescriptions() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        var caught: [ChatError] = []

        // notFound
        let notFound = await thrownChatError { try await repository.leaveChannel("missing") }
        guard case .notFound = notFound else {
            Issue.record("expected notFound, got \(String(describing: notFound))")
            return
        }
        caught.append(notFound!)

        // alreadyExists
        let builder = CommunityChannelBuilder()
        builder.setId("taken")
        _ = try await repository.createChannel(with: builder)
        let alreadyExists = await thrownChatError { _ = try await repository.createChannel(with: builder) }
        guard case .alreadyExists = alreadyExists else {
            Issue.record("expected alreadyExists, got \(String(describing: alreadyExists))")
            return
        }
        caught.append(alreadyExists!)

        // notAllowed: a conversation cannot be left.
        let conversation = ConversationChannelBuilder()
        conversation.setUserIds(["bob"])
        let conversationId = try await repository.createChannel(with: conversation).channelId
        let notAllowed = await thrownChatError { try await repository.leaveChannel(conversationId) }
        guard case .notAllowed = notAllowed else {
            Issue.record("expected notAllowed, got \(String(describing: notAllowed))")
            return
        }
        caught.append(notAllowed!)

        // forbidden: sending to a broadcast channel.
        try await server.createChannel(type: .broadcast, channelId: "news", displayName: "News", userIds: ["alice"])
        let forbidden = await thrownChatError {
            _ = try await MessageRepository(client: alice).sendMessage(
                channelId: "news", text: "hi", mentionedUserIds: [])
        }
        guard case .forbidden = forbidden else {
            Issue.record("expected forbidden, got \(String(describing: forbidden))")
            return
        }
        caught.append(forbidden!)

        // invalidArgument, naming the field.
        let invalid = await thrownChatError {
            _ = try await repository.createChannel(with: ConversationChannelBuilder())
        }
        guard case .invalidArgument(let field, _) = invalid else {
            Issue.record("expected invalidArgument, got \(String(describing: invalid))")
            return
        }
        #expect(field == "userIds")
        caught.append(invalid!)

        // limitExceeded: metadata over 100 KB.
        let big = CommunityChannelBuilder()
        big.setMetadata(["blob": .string(String(repeating: "x", count: 101 * 1024))])
        let limit = await thrownChatError { _ = try await repository.createChannel(with: big) }
        guard case .limitExceeded = limit else {
            Issue.record("expected limitExceeded, got \(String(describing: limit))")
            return
        }
        caught.append(limit!)

        // rateLimited: a member over the channel's rate limit.
        let club = CommunityChannelBuilder()
        club.setId("club")
        club.setUserIds(["bob"])
        _ = try await repository.createChannel(with: club)
        try await ChannelModeration(client: alice, channelId: "club").setRateLimit(period: 600, limit: 1, window: 60)
        let bobMessages = MessageRepository(client: bob)
        _ = try await bobMessages.sendMessage(channelId: "club", text: "one", mentionedUserIds: [])
        let rateLimited = await thrownChatError {
            _ = try await bobMessages.sendMessage(channelId: "club", text: "two", mentionedUserIds: [])
        }
        guard case .rateLimited = rateLimited else {
            Issue.record("expected rateLimited, got \(String(describing: rateLimited))")
            return
        }
        caught.append(rateLimited!)

        // unavailable: a client that is not connected.
        let offline = ChatClient(transport: server.connection(userId: "alice", deviceId: "offline"))
        let unavailable = await thrownChatError {
            _ = try await ChannelRepository(client: offline).createChannel(with: CommunityChannelBuilder())
        }
        guard case .unavailable = unavailable else {
            Issue.record("expected unavailable, got \(String(describing: unavailable))")
            return
        }
        caught.append(unavailable!)

        for error in caught {
            let sentence = error.description
            #expect(sentence == "\(error)")
            #expect(sentence.first?.isUppercase == true, "\(sentence)")
            #expect(sentence.hasSuffix("."), "\(sentence)")
            #expect(sentence.split(separator: " ").count >= 4, "\(sentence)")
        }
        // The details are in the sentence.
        #expect(ChatError.invalidArgument(field: "userIds", reason: "x").description.contains("userIds"))
        #expect(ChatError.rateLimited(retryAfter: 30).description.contains("30"))
        #expect(caught.count == 8)
        let thrown: any Error = ChatError.notFound("channel 'x'")
        #expect(thrown is ChatError)
    }

    @Test func anUnreachableServerIsUnavailable() async throws {
        let server = ChatServer()
        let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
        // Never connected.
        let error = await thrownChatError {
            _ = try await ChannelRepository(client: client).createChannel(with: CommunityChannelBuilder())
        }
        guard case .unavailable = error else {
            Issue.record("a request without a connection: expected unavailable, got \(String(describing: error))")
            return
        }
    }
}
