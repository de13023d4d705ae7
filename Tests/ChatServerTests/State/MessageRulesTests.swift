import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct MessageRulesTests {
    @Test func messagesGetPerChannelSequenceNumbersAndMentions() throws {
        var fixture = StateFixture()
        let a = try fixture.create(.community, members: ["bob", "carol"])
        let b = try fixture.create(.community, members: ["bob"])
        let first = try fixture.state.sendMessage("1", to: a, by: "alice", now: fixture.now)
        let other = try fixture.state.sendMessage("x", to: b, by: "bob", now: fixture.now)
        let second = try fixture.state.sendMessage(
            "hi @bob", mentionedUserIds: ["bob", "bob"], to: a, by: "carol", now: fixture.now)
        #expect([first.sequence, second.sequence, other.sequence] == [Int]([1, 2, 1]))
        #expect(second.mentionedUserIds == ["bob"])
        #expect(first.messageId != other.messageId)
        let channel = fixture.channel(a, for: "bob")
        #expect(channel.lastSequence == 2)
        #expect(channel.messageCount == 2)
        #expect(channel.lastMessageAt == fixture.now)
        #expect(channel.hasMention)
        #expect(!fixture.channel(a, for: "carol").hasMention)
    }

    @Test func senderOrModeratorEditsAndDeletes() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob", "carol"])
        let message = try fixture.state.sendMessage("typo", to: id, by: "bob", now: fixture.now)
        #expect(
            chatError {
                try fixture.state.editMessage(message.messageId, text: "x", by: .user("carol"), now: fixture.now)
            }?.kind == "forbidden")
        let edited = try fixture.state.editMessage(message.messageId, text: "fixed", by: .user("bob"), now: fixture.now)
        #expect(edited.text == "fixed")
        #expect(edited.editedAt == fixture.now)
        try fixture.state.editMessage(message.messageId, text: "moderated", by: .user("alice"), now: fixture.now)
        #expect(
            chatError { try fixture.state.deleteMessage(message.messageId, by: .user("carol"), now: fixture.now) }?.kind
                == "forbidden")
        let deleted = try fixture.state.deleteMessage(message.messageId, by: .user("alice"), now: fixture.now)
        #expect(deleted.isDeleted && deleted.text.isEmpty && deleted.sequence == 1)
        #expect(
            chatError {
                try fixture.state.editMessage(message.messageId, text: "x", by: .user("bob"), now: fixture.now)
            }?.kind == "notAllowed")
        #expect(
            chatError { try fixture.state.deleteMessage("nope", by: .user("bob"), now: fixture.now) }?.kind
                == "notFound")
        #expect(fixture.channel(id, for: "carol").unreadCount == 1)
    }

    @Test func ownMessagesAdvanceOwnReadMarker() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        _ = try fixture.state.sendMessage("1", to: id, by: "bob", now: fixture.now)
        _ = try fixture.state.sendMessage("2", to: id, by: "alice", now: fixture.now)
        #expect(fixture.state.unreadCount(userId: "bob", channelId: id) == 1)
        #expect(fixture.state.unreadCount(userId: "alice", channelId: id) == 0)
        _ = try fixture.state.sendMessage("3", to: id, by: "bob", now: fixture.now)
        #expect(fixture.state.unreadCount(userId: "bob", channelId: id) == 0)
    }

    @Test func unreadCountsMessagesAfterTheMarker() throws {
        var fixture = StateFixture()
        let a = try fixture.create(.community, members: ["bob"])
        let b = try fixture.create(.community, members: ["bob"])
        for index in 0..<5 { _ = try fixture.state.sendMessage("\(index)", to: a, by: "alice", now: fixture.now) }
        _ = try fixture.state.sendMessage("x", to: b, by: "alice", now: fixture.now)
        #expect(fixture.channel(a, for: "bob").unreadCount == 5)
        try fixture.state.markRead(a, upTo: 3, userId: "bob", now: fixture.now)
        #expect(fixture.channel(a, for: "bob").unreadCount == 2)
        try fixture.state.markRead(a, upTo: 1, userId: "bob", now: fixture.now)
        #expect(fixture.channel(a, for: "bob").readSequence == 3)
        #expect(fixture.state.totalUnreadCount(userId: "bob") == 3)
        try fixture.state.markRead(a, upTo: nil, userId: "bob", now: fixture.now)
        #expect(fixture.state.totalUnreadCount(userId: "bob") == 1)
        #expect(fixture.channel(a, for: "carol").unreadCount == 0)
    }

    @Test func joiningStartsWithNothingUnread() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        _ = try fixture.state.sendMessage("old", to: id, by: "alice", now: fixture.now)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 0)
    }

    @Test func mentionFlagFollowsTheMarker() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        _ = try fixture.state.sendMessage("@bob", mentionedUserIds: ["bob"], to: id, by: "alice", now: fixture.now)
        _ = try fixture.state.sendMessage("later", to: id, by: "alice", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").hasMention)
        try fixture.state.markRead(id, upTo: 1, userId: "bob", now: fixture.now)
        #expect(!fixture.channel(id, for: "bob").hasMention)
        #expect(fixture.channel(id, for: "bob").unreadCount == 1)
    }
}
