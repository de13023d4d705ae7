import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct ChannelRulesTests {
    @Test func clientsCreateOnlyCommunityLiveAndConversation() throws {
        var fixture = StateFixture()
        for type in [ChannelType.community, .live] {
            try fixture.create(type)
        }
        try fixture.create(.conversation, members: ["bob"])
        for type in [ChannelType.standard, .private, .broadcast] {
            let error = chatError { try fixture.create(type) }
            #expect(error?.kind == "notAllowed", "\(type)")
        }
        for type in ChannelType.allCases where type != .conversation {
            #expect(throws: Never.self) { try fixture.create(type, by: nil) }
        }
    }

    @Test func existingIdIsAlreadyExists() throws {
        var fixture = StateFixture()
        try fixture.create(.community, id: "ops")
        let before = fixture.state.channels.count
        #expect(chatError { try fixture.create(.live, id: "ops", by: "bob") }?.kind == "alreadyExists")
        #expect(fixture.state.channels.count == before)
    }

    @Test func missingIdIsGeneratedAndUnique() throws {
        var fixture = StateFixture()
        try fixture.create(.community, id: "channel-2")
        let ids = try (0..<5).map { _ in try fixture.create(.community) }
        #expect(Set(ids).count == 5)
        #expect(!ids.contains("channel-2"))
        #expect(ids.allSatisfy { !$0.isEmpty })
    }

    @Test func conversationIsUniqueByMemberSet() throws {
        var fixture = StateFixture()
        let first = try fixture.create(.conversation, by: "alice", members: ["bob"])
        let again = try fixture.create(.conversation, by: "bob", members: ["alice", "alice"])
        let other = try fixture.create(.conversation, by: "alice", members: ["bob", "carol"])
        #expect(first == again)
        #expect(first != other)
        #expect(fixture.channel(first, for: "alice").isDistinct)
        #expect(chatError { try fixture.create(.conversation, by: "alice") }?.kind == "invalidArgument(userIds)")
    }

    @Test func creatorBecomesMemberAndModeratorOfCommunityAndLive() throws {
        var fixture = StateFixture()
        for type in [ChannelType.community, .live] {
            let id = try fixture.create(type, members: ["bob"])
            let channel = fixture.state.channels[id]!
            #expect(channel.members["alice"]?.roles == [ChannelRole.moderator])
            #expect(channel.members["bob"]?.roles == [])
            #expect(fixture.channel(id, for: "alice").currentUserMembership == .member)
            #expect(fixture.channel(id, for: "alice").memberCount == 2)
        }
        let conversation = try fixture.create(.conversation, members: ["bob"])
        #expect(fixture.state.channels[conversation]!.members["alice"]?.roles == [])
    }

    @Test func joinIsIdempotent() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        _ = fixture.state.drainEmissions()
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        #expect(fixture.state.drainEmissions().isEmpty)
        #expect(fixture.channel(id, for: "bob").memberCount == 2)
        #expect(fixture.channel(id, for: "bob").currentUserMembership == .member)
    }

    @Test func getNeverJoins() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let seen = try fixture.state.getChannel(id, by: .user("bob"), now: fixture.now)
        #expect(seen.currentUserMembership == Membership.none)
        #expect(fixture.channel(id, for: "bob").memberCount == 1)
        #expect(fixture.state.memberships["bob", default: []].isEmpty)
    }

    @Test func leaveRemovesMembership() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.leaveChannel(id, userId: "bob", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").currentUserMembership == Membership.none)
        #expect(fixture.channel(id, for: "bob").memberCount == 1)
        #expect(fixture.state.memberships["bob", default: []].isEmpty)
        try fixture.state.leaveChannel(id, userId: "bob", now: fixture.now)
    }

    @Test func conversationsRefuseJoinLeaveAddRemoveAndBan() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.conversation, members: ["bob"])
        let now = fixture.now
        var state = fixture.state
        let attempts: [(String, () throws -> Void)] = [
            ("join", { try state.joinChannel(id, userId: "alice", now: now) }),
            ("leave", { try state.leaveChannel(id, userId: "alice", now: now) }),
            ("add", { try state.addMembers(["carol"], to: id, by: .user("alice"), now: now) }),
            ("remove", { try state.removeMembers(["bob"], from: id, by: .user("alice"), now: now) }),
            ("ban", { try state.banMembers(["bob"], in: id, by: .user("alice"), now: now) }),
            ("unban", { try state.unbanMembers(["bob"], in: id, by: .user("alice"), now: now) }),
            ("admin add", { try state.addMembers(["carol"], to: id, by: .console, now: now) }),
        ]
        for (name, attempt) in attempts {
            let error = chatError(attempt)
            #expect(error?.kind == "notAllowed", "\(name)")
            if case .notAllowed(let reason) = error { #expect(reason.contains("conversation")) }
        }
        #expect(state.channels[id]!.members.keys.sorted() == ["alice", "bob"])
    }

    @Test func deletedChannelIsMarkedAndRefusesChanges() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        #expect(
            chatError { try fixture.state.deleteChannel(id, by: .user("alice"), now: fixture.now) }?.kind == "forbidden"
        )
        _ = try fixture.state.sendMessage("x", to: id, by: "alice", now: fixture.now)
        try fixture.state.deleteChannel(id, by: .user("boss"), now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 0)
        #expect(fixture.channel(id, for: "bob").isDeleted)
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now) }?.kind
                == "notAllowed")
        #expect(chatError { try fixture.state.startTyping(id, userId: "bob", now: fixture.now) }?.kind == "notAllowed")
        #expect(fixture.state.totalUnreadCount(userId: "bob") == 0)
        // Its members can still read what was sent.
        let page = try fixture.state.messages(MessagePageQuery(channelId: id), by: .user("bob"), now: fixture.now)
        #expect(page.messages.map(\.text) == ["x"])
    }
}
