import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Mentions name registered users; mentions of non-members are dropped (Stream's behaviour).
@Suite struct MentionRulesTests {
    /// A mention of a user nobody registered (someone who never connected) is dropped like a
    /// non-member's: the message is sent, the known member is mentioned (Stream and Amity accept
    /// such a message too).
    @Test func mentionsOfUnknownUsersAreDroppedAndTheMessageIsSent() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        let message = try fixture.state.sendMessage(
            "hi @ghost", mentionedUserIds: ["bob", "ghost"], to: id, by: "alice", now: fixture.now)
        #expect(message.mentionedUserIds == ["bob"])
        #expect(fixture.state.channels[id]!.messages.elements.map(\.text) == ["hi @ghost"])
        #expect(fixture.state.channels[id]!.members["bob"]!.mentionSequence == message.sequence)
        #expect(fixture.state.users["ghost"] == nil, "nobody is made up")
        // A malformed id is still bad input.
        #expect(
            chatError {
                _ = try fixture.state.sendMessage(
                    "x", mentionedUserIds: [" ghost"], to: id, by: "alice", now: fixture.now)
            }?.kind == "invalidArgument(mentionedUserIds)")
    }

    @Test func mentionsOfNonMembersAreDroppedSilently() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        let message = try fixture.state.sendMessage(
            "hi", mentionedUserIds: ["carol", "bob", "bob"], to: id, by: "alice", now: fixture.now)
        #expect(message.mentionedUserIds == ["bob"])
        #expect(fixture.state.channels[id]!.members["carol"] == nil)
        #expect(fixture.channel(id, for: "bob").hasMention)
        // Edits follow the same rules.
        let edited = try fixture.state.editMessage(
            message.messageId, MessageDraft(channelId: id, text: "hi", mentionedUserIds: ["dave", "alice"]),
            by: .user("alice"), now: fixture.now)
        #expect(edited.mentionedUserIds == ["alice"])
        let unknown = try fixture.state.editMessage(
            message.messageId, MessageDraft(channelId: id, text: "x", mentionedUserIds: ["ghost"]),
            by: .user("alice"), now: fixture.now)
        #expect(unknown.mentionedUserIds.isEmpty && unknown.text == "x")
    }
}
