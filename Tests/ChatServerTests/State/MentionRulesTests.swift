import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Mentions name registered users; mentions of non-members are dropped (Stream's behaviour).
@Suite struct MentionRulesTests {
    @Test func mentionsOfUnknownUsersAreRefusedAndChangeNothing() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        let before = fixture.state.channels[id]!.messages.elements
        let error = chatError {
            _ = try fixture.state.sendMessage(
                "hi @ghost", mentionedUserIds: ["bob", "ghost"], to: id, by: "alice", now: fixture.now)
        }
        #expect(error?.kind == "invalidArgument(mentionedUserIds)")
        #expect(fixture.state.channels[id]!.messages.elements == before)
        #expect(fixture.state.channels[id]!.members["bob"]!.mentionSequence == 0)
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
        #expect(
            chatError {
                try fixture.state.editMessage(
                    message.messageId, MessageDraft(channelId: id, text: "x", mentionedUserIds: ["ghost"]),
                    by: .user("alice"), now: fixture.now)
            }?.kind == "invalidArgument(mentionedUserIds)")
    }
}
