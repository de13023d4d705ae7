import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct ChannelRepositoryTests {
    let fixture = ChatFixture()

    // MARK: Creation

    @Test func createCommunityWithBuilderAsLiveObject() async throws {
        let alice = try await fixture.client("alice")
        _ = try await fixture.client("bob")
        let repository = ChannelRepository(client: alice)
        let builder = CommunityChannelBuilder()
        builder.setId("ops")
        builder.setUserIds(["bob"])
        builder.setDisplayName("Ops")
        builder.setTags(["ch-comm", "ios-sdk"])
        builder.setMetadata(["sdk_type": "ios"])
        let object = await repository.createChannel().community(with: builder).loaded()
        let channel = try #require(object.snapshot)
        #expect(channel.channelId == "ops")
        #expect(channel.type == .community)
        #expect(channel.displayName == "Ops")
        #expect(channel.tags == ["ch-comm", "ios-sdk"])
        #expect(channel.metadata["sdk_type"] == "ios")
        #expect(channel.currentUserMembership == .member)
        #expect(channel.memberCount == 2)
        #expect(object.dataStatus == .fresh)
        #expect(object.error == nil)
    }

    @Test func createLiveAndConversationAsync() async throws {
        let alice = try await fixture.client("alice")
        _ = try await fixture.client("bob")
        let repository = ChannelRepository(client: alice)
        let live = LiveChannelBuilder()
        live.setDisplayName("Clinic")
        let liveChannel = try await repository.createChannel(with: live)
        #expect(liveChannel.type == .live)
        #expect(!liveChannel.channelId.isEmpty)

        let conversation = ConversationChannelBuilder()
        conversation.setUserIds(["bob"])
        let first = try await repository.createChannel(with: conversation)
        #expect(first.type == .conversation)
        // A conversation is unique by its members: creating it again returns the same channel.
        let again = await repository.createConversation(with: conversation).loaded()
        #expect(again.snapshot?.channelId == first.channelId)
    }

    @Test func generatedIdsAreUnique() async throws {
        let alice = try await fixture.client("alice")
        let repository = ChannelRepository(client: alice)
        var ids: Set<String> = []
        for _ in 0..<5 {
            ids.insert(try await repository.createChannel(with: CommunityChannelBuilder()).channelId)
        }
        #expect(ids.count == 5)
    }

    @Test func duplicateIdIsReportedThroughTheLiveObject() async throws {
        let alice = try await fixture.client("alice")
        let repository = ChannelRepository(client: alice)
        let builder = CommunityChannelBuilder()
        builder.setId("taken")
        _ = try await repository.createChannel(with: builder)
        let object = await repository.createChannel().community(with: builder).loaded()
        guard case .alreadyExists = object.error as? ChatError else {
            Issue.record("expected alreadyExists, got \(String(describing: object.error))")
            return
        }
        #expect(object.dataStatus == .error)
        await #expect(throws: ChatError.self) { try await repository.createChannel(with: builder) }
    }

    @Test func builderValidationFailsBeforeSending() async throws {
        let alice = try await fixture.client("alice")
        let repository = ChannelRepository(client: alice)
        let object = repository.createChannel().conversation(with: ConversationChannelBuilder())
        guard case .invalidArgument(let field, _) = object.error as? ChatError else {
            Issue.record("expected invalidArgument, got \(String(describing: object.error))")
            return
        }
        #expect(field == "userIds")
    }

    // MARK: Join, get, leave

    @Test func joinIsIdempotentAndGetNeverJoins() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let builder = CommunityChannelBuilder()
        builder.setId("lobby")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let bobRepository = ChannelRepository(client: bob)
        let seen = await bobRepository.getChannel("lobby").loaded()
        #expect(seen.snapshot?.currentUserMembership == Membership.none)
        #expect(fixture.server.members(channelId: "lobby").count == 1)

        let joined = await bobRepository.joinChannel("lobby").loaded()
        #expect(joined.snapshot?.currentUserMembership == .member)
        let again = try await bobRepository.joinChannel(channelId: "lobby")
        #expect(again.memberCount == 2)
        // The object from getChannel follows the cache: it shows the join too.
        #expect(seen.snapshot?.currentUserMembership == .member)
    }

    @Test func leaveRemovesMembershipEverywhere() async throws {
        let alice = try await fixture.client("alice")
        let repository = ChannelRepository(client: alice)
        let builder = CommunityChannelBuilder()
        builder.setId("room")
        _ = try await repository.createChannel(with: builder)
        let object = repository.getChannel("room")
        try await repository.leaveChannel("room")
        #expect(object.snapshot?.currentUserMembership == Membership.none)
    }

    @Test func conversationsCannotBeJoinedOrLeft() async throws {
        let alice = try await fixture.client("alice")
        _ = try await fixture.client("bob")
        let repository = ChannelRepository(client: alice)
        let builder = ConversationChannelBuilder()
        builder.setUserIds(["bob"])
        let conversation = try await repository.createChannel(with: builder)
        await #expect(throws: ChatError.self) { try await repository.leaveChannel(conversation.channelId) }
    }

    // MARK: Updates seen live

    @Test func metadataAndDisplayNameUpdatesReachAnotherClient() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let builder = CommunityChannelBuilder()
        builder.setId("news")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let bobsView = await ChannelRepository(client: bob).getChannel("news").loaded()

        let updater = ChannelUpdateBuilder(channelId: "news", client: alice)
        updater.setDisplayName("Channel Amity")
        updater.setMetadata(["hello": "world"])
        let updated = try await ChannelRepository(client: alice).updateChannel(with: updater)
        #expect(updated.displayName == "Channel Amity")

        let seen = await bobsView.value { $0?.displayName == "Channel Amity" }
        #expect(seen?.metadata["hello"] == "world")
    }

    @Test func liveUpdateBuilderReportsForbidden() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let builder = CommunityChannelBuilder()
        builder.setId("owned")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let updater = ChannelUpdateBuilder(channelId: "owned", client: bob)
        updater.setDisplayName("Hijacked")
        let object = await updater.update().loaded()
        #expect(object.error is ChatError)
        #expect(fixture.server.channel("owned")?.displayName == nil)
    }
}
