import ChatServer
import Foundation
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for channels: the builders and creation, joining,
/// getting and leaving, `ChannelUpdateBuilder`, the channel's fields and types, and `JSON`. Snippet
/// by snippet, written as a user's app would write it: only `import LiveChannels` and
/// `import ChatServer`, no `@testable`. Every name, label and shape pinned there must compile here,
/// and every behaviour stated there is asserted. The helpers the contract suites share are in
/// `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct ChannelContractTests {

    @Test func channelBuildersAndCreation() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        _ = try await connectedClient(server, "bob")
        _ = try await connectedClient(server, "carol")
        let repository = ChannelRepository(client: client)

        let builder = CommunityChannelBuilder()  // also LiveChannelBuilder, ConversationChannelBuilder
        builder.setId("my-id")  // optional; generated when absent
        builder.setUserIds(["bob", "carol"])
        builder.setDisplayName("Ops")
        builder.setTags(["ch-comm", "ios-sdk"])
        builder.setMetadata(["sdk_type": "ios"])  // [String: JSON]
        let channelObject: LiveObject<Channel> = repository.createChannel().community(with: builder)
        let community = try await loadedValue(of: channelObject)
        #expect(community.channelId == "my-id")
        #expect(community.type == .community)
        #expect(community.displayName == "Ops")
        #expect(community.tags == ["ch-comm", "ios-sdk"])
        #expect(community.metadata == ["sdk_type": "ios"])
        #expect(community.memberCount == 3)
        #expect(community.currentUserMembership == .member)
        #expect(channelObject.dataStatus == .fresh)

        let liveBuilder = LiveChannelBuilder()
        liveBuilder.setDisplayName("Clinic")
        let live = try await loadedValue(of: repository.createChannel().live(with: liveBuilder))
        #expect(live.type == .live)
        #expect(!live.channelId.isEmpty)  // generated

        let conversationBuilder = ConversationChannelBuilder()
        conversationBuilder.setUserIds(["bob"])
        let conversation = try await loadedValue(of: repository.createChannel().conversation(with: conversationBuilder))
        #expect(conversation.type == .conversation)
        // Unique by member set: the same conversation again.
        let again = try await loadedValue(of: repository.createConversation(with: conversationBuilder))
        #expect(again.channelId == conversation.channelId)

        // userIds required for a conversation.
        let noUsers = repository.createChannel().conversation(with: ConversationChannelBuilder())
        for await _ in noUsers.values where noUsers.loadingStatus != .loading { break }
        guard case .invalidArgument(let field, _) = noUsers.error as? ChatError else {
            Issue.record(
                "conversation without userIds: expected invalidArgument, got \(String(describing: noUsers.error))")
            return
        }
        #expect(field == "userIds")

        // The async form.
        let channel: Channel = try await repository.createChannel(with: CommunityChannelBuilder())
        let other: Channel = try await repository.createChannel(with: CommunityChannelBuilder())
        #expect(!channel.channelId.isEmpty && channel.channelId != other.channelId)
        let liveChannel: Channel = try await repository.createChannel(with: liveBuilder)
        #expect(liveChannel.type == .live)
        let error = await thrownChatError { _ = try await repository.createChannel(with: builder) }
        guard case .alreadyExists = error else {
            Issue.record("an id in use: expected alreadyExists, got \(String(describing: error))")
            return
        }
    }

    @Test func joinIsIdempotentGetNeverJoinsLeaveBothForms() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let builder = CommunityChannelBuilder()
        builder.setId("channel-id")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let repository = ChannelRepository(client: bob)

        let got: LiveObject<Channel> = repository.getChannel("channel-id")  // never joins
        let seen = try await loadedValue(of: got)
        #expect(seen.currentUserMembership == Membership.none)
        #expect(seen.memberCount == 1)
        #expect(!server.members(channelId: "channel-id").contains { $0.userId == "bob" })

        let joined: LiveObject<Channel> = repository.joinChannel("channel-id")  // idempotent
        #expect(try await loadedValue(of: joined).currentUserMembership == .member)
        let joinedAgain = repository.joinChannel("channel-id")
        let twice = try await loadedValue(of: joinedAgain)
        #expect(joinedAgain.error == nil)
        #expect(twice.currentUserMembership == .member)
        #expect(twice.memberCount == 2)
        // The getChannel handle follows the channel.
        for await value in got.values where value?.currentUserMembership == .member { break }

        try await repository.leaveChannel("channel-id")
        #expect(!server.members(channelId: "channel-id").contains { $0.userId == "bob" })
        for await value in got.values where value?.currentUserMembership == Membership.none { break }

        _ = try await loadedValue(of: repository.joinChannel("channel-id"))
        repository.leaveChannel("channel-id", withCompletion: nil)
        #expect(await eventually { !server.members(channelId: "channel-id").contains { $0.userId == "bob" } })

        let outcome = await withCheckedContinuation { continuation in
            repository.leaveChannel("missing") { success, error in
                continuation.resume(returning: (success, error as? ChatError))
            }
        }
        #expect(!outcome.0)
        guard case .notFound = outcome.1 else {
            Issue.record("leaving a missing channel: expected notFound, got \(String(describing: outcome.1))")
            return
        }
    }

    @Test func channelUpdateBuilder() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let repository = ChannelRepository(client: client)
        let builder = CommunityChannelBuilder()
        builder.setId("channel-id")
        _ = try await repository.createChannel(with: builder)

        let updater = ChannelUpdateBuilder(channelId: "channel-id", client: client)
        updater.setDisplayName("Channel Amity")
        updater.setMetadata(["hello": "world"])
        let updated: LiveObject<Channel> = updater.update()
        for await value in updated.values where value?.displayName == "Channel Amity" { break }
        #expect(updated.snapshot?.metadata["hello"] == "world")
        #expect(server.channel("channel-id")?.displayName == "Channel Amity")

        let second = ChannelUpdateBuilder(channelId: "channel-id", client: client)
        second.setMetadata(["hello": "again"])
        let channel: Channel = try await repository.updateChannel(with: second)
        #expect(channel.metadata == ["hello": "again"])  // replaced as a whole
        #expect(channel.displayName == "Channel Amity")
    }

    @Test func channelFieldsAndTypes() async throws {
        let server = ChatServer()
        let client = try await connectedClient(server, "alice")
        let builder = CommunityChannelBuilder()
        builder.setId("fields")
        let channel = try await ChannelRepository(client: client).createChannel(with: builder)
        let channelId: String = channel.channelId
        _ = channel.isDistinct
        let metadata: [String: JSON] = channel.metadata
        let type: ChannelType = channel.type
        let tags: [String] = channel.tags
        _ = channel.isMuted
        _ = channel.isRateLimited
        _ = channel.rateLimit
        let displayName: String? = channel.displayName
        _ = channel.memberCount
        _ = channel.messageCount
        _ = channel.lastActivity
        _ = channel.createdAt
        _ = channel.updatedAt
        _ = channel.avatarFileId
        _ = channel.isDeleted
        _ = channel.unreadCount
        _ = channel.hasMention
        let membership: Membership = channel.currentUserMembership
        _ = channel.lastMessageAt
        #expect(channelId == "fields")
        #expect(metadata.isEmpty)  // empty when unset
        #expect(type == .community)
        #expect(tags.isEmpty)
        #expect(displayName == nil)
        #expect(membership == .member)
        #expect(channel.lastMessageAt == nil)
        #expect(channel.isDeleted == false)
        #expect(channel.unreadCount == 0)
        #expect(channel.hasMention == false)
        #expect(channel.memberCount == 1)
        #expect(channel.messageCount == 0)
        #expect(channel.isMuted == false)
        #expect(channel.isRateLimited == false)

        for type in [ChannelType.standard, .private, .conversation, .broadcast, .community, .live] {
            switch type {
            case .standard, .private, .conversation, .broadcast, .community, .live: break
            }
        }
        for membership in [Membership.none, .member, .banned] {
            switch membership {
            case .none, .member, .banned: break
            }
        }
        for status in [DataStatus.notExist, .local, .fresh, .error] {
            switch status {
            case .notExist, .local, .fresh, .error: break
            }
        }
        for status in [LoadingStatus.notLoading, .loading, .loaded, .error] {
            switch status {
            case .notLoading, .loading, .loaded, .error: break
            }
        }
    }

    @Test func jsonLiteralsAccessorsAndSubscripts() throws {
        let json: JSON = ["name": "ops", "count": 3, "ratio": 1.5, "on": true, "none": nil, "list": [1, "two", false]]
        #expect(json["name"]?.stringValue == "ops")
        #expect(json["count"]?.numberValue == 3)
        #expect(json["ratio"]?.numberValue == 1.5)
        #expect(json["on"]?.boolValue == true)
        #expect(json["none"] == .null)
        #expect(json["missing"] == nil)
        #expect(json["list"]?[1]?.stringValue == "two")
        #expect(json["list"]?[2]?.boolValue == false)
        #expect(json["list"]?[9] == nil)
        #expect(json["name"]?.numberValue == nil)
        #expect(json["count"]?.stringValue == nil)
        let cases: [JSON] = [.null, .bool(true), .number(2), .string("s"), .array([.null]), .object(["k": .null])]
        for value in cases {
            switch value {
            case .null, .bool(_), .number(_), .string(_), .array(_), .object(_): break
            }
        }
        #expect(Set(cases).count == 6)  // Hashable
        requireSendableEquatable(JSON.self)
        let decoded = try JSONDecoder().decode(JSON.self, from: JSONEncoder().encode(json))  // Codable
        #expect(decoded == json)
        let fromText = try JSONDecoder().decode(JSON.self, from: Data(#"{"a":[1,"x",true,null]}"#.utf8))
        #expect(fromText == ["a": [1, "x", true, nil]])
        let metadata: [String: JSON] = ["sdk_type": "ios", "nested": ["deep": 1]]
        #expect(metadata["nested"]?["deep"]?.numberValue == 1)
    }
}
