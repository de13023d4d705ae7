import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Flagging (seed 004): members of community and live channels flag messages and users; the
/// channel's moderators read who flagged what; other channel types have no flagging.
@Suite struct FlagRulesTests {
    @Test func membersFlagAndModeratorsReadTheReports() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob", "carol"])
        let message = try fixture.state.sendMessage("spam", to: id, by: "carol", now: fixture.now)
        for flagger in ["bob", "dave"]
        where flagger == "bob" || (try? fixture.state.joinChannel(id, userId: flagger, now: fixture.now)) != nil {
            try fixture.state.setMessageFlag(message.messageId, in: id, isFlagged: true, by: flagger, now: fixture.now)
        }
        // Idempotent.
        try fixture.state.setMessageFlag(message.messageId, in: id, isFlagged: true, by: "bob", now: fixture.now)
        try fixture.state.setUserFlag("carol", in: id, isFlagged: true, by: "bob", now: fixture.now)
        let reports = try fixture.state.flagReports(in: id, by: .user("alice"), now: fixture.now)
        #expect(
            reports == [
                FlagReport(subject: .message(messageId: message.messageId), flaggedBy: ["bob", "dave"]),
                FlagReport(subject: .user(userId: "carol"), flaggedBy: ["bob"]),
            ])
        #expect(reports.first?.count == 2)
        // Members who are not moderators cannot read them; admins can.
        #expect(
            chatError { _ = try fixture.state.flagReports(in: id, by: .user("bob"), now: fixture.now) }?.kind
                == "forbidden")
        #expect(try fixture.state.flagReports(in: id, by: .user("boss"), now: fixture.now).count == 2)
        // Unflagging withdraws; the last withdrawal removes the report.
        try fixture.state.setUserFlag("carol", in: id, isFlagged: false, by: "bob", now: fixture.now)
        try fixture.state.setMessageFlag(message.messageId, in: id, isFlagged: false, by: "dave", now: fixture.now)
        #expect(
            try fixture.state.flagReports(in: id, by: .user("alice"), now: fixture.now)
                == [FlagReport(subject: .message(messageId: message.messageId), flaggedBy: ["bob"])])
    }

    @Test func flaggingIsForMembersOfCommunityAndLiveChannels() throws {
        var fixture = StateFixture()
        let community = try fixture.create(.community, members: ["bob"])
        let message = try fixture.state.sendMessage("hi", to: community, by: "bob", now: fixture.now)
        // Not a member.
        #expect(
            chatError {
                try fixture.state.setMessageFlag(
                    message.messageId, in: community, isFlagged: true, by: "carol", now: fixture.now)
            }?.kind == "forbidden")
        // A message of another channel, an unknown user.
        let other = try fixture.create(.live, members: ["bob"])
        #expect(
            chatError {
                try fixture.state.setMessageFlag(
                    message.messageId, in: other, isFlagged: true, by: "bob", now: fixture.now)
            }?.kind == "notFound")
        #expect(
            chatError {
                try fixture.state.setUserFlag("carol", in: community, isFlagged: true, by: "bob", now: fixture.now)
            }?.kind == "notFound")
        // Broadcast channels are read-only, conversations have no moderation.
        let broadcast = try fixture.create(.broadcast, by: nil, members: ["bob", "carol"])
        #expect(
            chatError {
                try fixture.state.setUserFlag("carol", in: broadcast, isFlagged: true, by: "bob", now: fixture.now)
            }?.kind == "notAllowed")
        let conversation = try fixture.create(.conversation, by: "bob", members: ["carol"])
        #expect(
            chatError {
                try fixture.state.setUserFlag("carol", in: conversation, isFlagged: true, by: "bob", now: fixture.now)
            }?.kind == "notAllowed")
        #expect(try fixture.state.flagReports(in: community, by: .user("alice"), now: fixture.now).isEmpty)
    }
}
