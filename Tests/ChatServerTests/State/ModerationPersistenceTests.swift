import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Moderation belongs to the (channel, user) pair and cannot be dodged; someone can always unban.
@Suite struct ModerationPersistenceTests {
    @Test func aMuteSurvivesLeavingAndRejoiningUntilItEnds() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.muteMembers(["bob"], period: 600, in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.leaveChannel(id, userId: "bob", now: fixture.now)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now) }?.kind
                == "forbidden")
        #expect(fixture.state.renderMember("bob", in: fixture.state.channels[id]!, now: fixture.now)?.isMuted == true)
        // Removed and re-added, banned and unbanned: still muted.
        try fixture.state.removeMembers(["bob"], from: id, by: .user("alice"), now: fixture.now)
        try fixture.state.banMembers(["bob"], in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.unbanMembers(["bob"], in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.addMembers(["bob"], to: id, by: .user("alice"), now: fixture.now)
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now) }?.kind
                == "forbidden")
        fixture.advance(600)
        _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now)
    }

    @Test func aMuteThatEndsWhileAwayEndsAndTheMemberCanSendOnReturn() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.muteMembers(["bob"], period: 60, in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.leaveChannel(id, userId: "bob", now: fixture.now)
        fixture.advance(61)
        #expect(fixture.state.channels[id]!.mutes["bob"] == nil)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now)
    }

    @Test func theRateLimitWindowSurvivesLeavingAndRejoining() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.setRateLimit(id, period: -1, limit: 2, window: 60, by: .user("alice"), now: fixture.now)
        _ = try fixture.state.sendMessage("1", to: id, by: "bob", now: fixture.now)
        _ = try fixture.state.sendMessage("2", to: id, by: "bob", now: fixture.now)
        try fixture.state.leaveChannel(id, userId: "bob", now: fixture.now)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        guard
            case .rateLimited(let retryAfter)? = chatError({
                _ = try fixture.state.sendMessage("3", to: id, by: "bob", now: fixture.now)
            })
        else {
            Issue.record("leaving and rejoining reset the rate-limit window")
            return
        }
        #expect(retryAfter == 60)
        fixture.advance(60)
        _ = try fixture.state.sendMessage("3", to: id, by: "bob", now: fixture.now)
    }

    @Test func theOnlyModeratorCannotBanThemselves() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])  // alice is the only moderator
        let before = fixture.state.channels[id]!.members
        let error = chatError {
            try fixture.state.banMembers(["alice", "bob"], in: id, by: .user("alice"), now: fixture.now)
        }
        #expect(error?.kind == "notAllowed")
        #expect(fixture.state.channels[id]!.members == before && fixture.state.channels[id]!.bans.isEmpty)
        // With another moderator left, they may.
        try fixture.state.setRole(
            ChannelRole.moderator, granted: true, for: ["bob"], in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.banMembers(["alice"], in: id, by: .user("alice"), now: fixture.now)
        #expect(fixture.state.channels[id]!.isBanned("alice"))
        // …but not both moderators at once.
        try fixture.state.unbanMembers(["alice"], in: id, by: .user("bob"), now: fixture.now)
        try fixture.state.joinChannel(id, userId: "alice", now: fixture.now)
        try fixture.state.setRole(
            ChannelRole.moderator, granted: true, for: ["alice"], in: id, by: .user("bob"), now: fixture.now)
        #expect(
            chatError { try fixture.state.banMembers(["alice", "bob"], in: id, by: .user("bob"), now: fixture.now) }?
                .kind == "notAllowed")
    }

    @Test func adminsCanAlwaysUnbanAndModerateEvenWhenBannedThemselves() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.banMembers(["boss", "bob"], in: id, by: .user("alice"), now: fixture.now)
        // The banned admin, not a member, unbans others and themselves and can mute.
        try fixture.state.unbanMembers(["bob", "boss"], in: id, by: .user("boss"), now: fixture.now)
        #expect(fixture.state.channels[id]!.bans.isEmpty)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        try fixture.state.muteMembers(["bob"], period: 10, in: id, by: .user("boss"), now: fixture.now)
        // An admin may ban themselves (admins act regardless), and then still unban themselves.
        try fixture.state.banMembers(["boss"], in: id, by: .user("boss"), now: fixture.now)
        try fixture.state.unbanMembers(["boss"], in: id, by: .user("boss"), now: fixture.now)
        // A channel whose moderator left still has the admins to unban.
        try fixture.state.banMembers(["bob"], in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.leaveChannel(id, userId: "alice", now: fixture.now)
        try fixture.state.unbanMembers(["bob"], in: id, by: .user("boss"), now: fixture.now)
        #expect(!fixture.state.channels[id]!.isBanned("bob"))
    }
}
