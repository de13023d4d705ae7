import ChatServer
import Foundation
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for the models' fields: `User`, `Channel`,
/// `ChannelMember`, `Message` and `Permission`, all `Identifiable` and `Equatable`. Snippet by
/// snippet, written as a user's app would write it: only `import LiveChannels` and
/// `import ChatServer`, no `@testable`. Every name, label and shape pinned there must compile here,
/// and every behaviour stated there is asserted. The helpers the contract suites share are in
/// `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct ModelContractTests {

    @Test func modelFieldsIdentifiableAndEquatable() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let user: User = try await server.registerUser(id: "bob", displayName: "Bob", isAdmin: false)
        let userId: String = user.userId
        #expect(userId == "bob")
        #expect(user.displayName == "Bob")
        #expect(user.id == user.userId)

        let builder = CommunityChannelBuilder()
        builder.setId("c1")
        builder.setUserIds(["bob"])
        let channel = try await ChannelRepository(client: alice).createChannel(with: builder)
        #expect(channel.id == channel.channelId)

        let members = ChannelParticipation(client: alice, channelId: "c1").getMembers(
            filter: .all, sortBy: .firstCreated, roles: [])
        for await update in members.updates where update.snapshots.count == 2 { break }
        let member = try #require(members.object(at: 0))
        let memberUserId: String = member.userId
        let memberChannelId: String = member.channelId
        let roles: [String] = member.roles
        let isMuted: Bool = member.isMuted
        #expect(memberUserId == "alice")
        #expect(memberChannelId == "c1")
        #expect(roles.contains("moderator"))
        #expect(!isMuted)
        #expect(member.membership == channel.currentUserMembership)  // the same type
        #expect(member.membership == .member)
        #expect(member.id == member.userId)

        let message = try await MessageRepository(client: alice).sendMessage(
            channelId: "c1", text: "hi @bob", mentionedUserIds: ["bob"])
        let messageId: String = message.messageId
        let messageChannelId: String = message.channelId
        let messageUserId: String = message.userId
        let text: String = message.text
        let mentioned: [String] = message.mentionedUserIds
        let createdAt: Date = message.createdAt
        #expect(!messageId.isEmpty)
        #expect(messageChannelId == "c1")
        #expect(messageUserId == "alice")
        #expect(text == "hi @bob")
        #expect(mentioned == ["bob"])
        #expect(createdAt.timeIntervalSince1970 > 0)
        #expect(message.id == message.messageId)

        let permissions: [Permission] = [
            .editChannel, .sendMessage, .addMember, .removeMember, .banMember, .muteMember,
        ]
        #expect(Set(permissions).count == 6)

        requireIdentifiableEquatable(Channel.self)
        requireIdentifiableEquatable(ChannelMember.self)
        requireIdentifiableEquatable(Message.self)
        requireIdentifiableEquatable(User.self)
        // A LiveCollection of them diffs by id.
        var renamed = channel
        renamed.displayName = "Renamed"
        let diff = CollectionChange(from: [channel], to: [renamed])
        #expect(diff.modifications == [0] && diff.insertions.isEmpty && diff.deletions.isEmpty)
    }
}

// MARK: - Helpers

private func requireIdentifiableEquatable<T: Identifiable & Equatable>(_: T.Type) where T.ID == String {}
