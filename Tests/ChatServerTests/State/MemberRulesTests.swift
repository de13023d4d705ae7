import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct MemberRulesTests {
    @Test func membersAreLimitedTo300000() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        for index in 1..<InputLimits.maxMembers {
            let userId = "u\(index)"
            fixture.state.channels[id]!.members[userId] = MemberRecord(
                userId: userId, joinedAt: fixture.now, readSequence: 0)
        }
        fixture.state.channels[id]!.info.memberCount = InputLimits.maxMembers
        #expect(
            chatError { try fixture.state.joinChannel(id, userId: "bob", now: fixture.now) }?.kind == "limitExceeded")
        #expect(
            chatError { try fixture.state.addMembers(["bob"], to: id, by: .user("alice"), now: fixture.now) }?.kind
                == "limitExceeded")
        #expect(fixture.state.channels[id]!.members["bob"] == nil)
    }

    @Test func rolesAreAddedAndRemoved() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.setRole("helper", granted: true, for: ["bob"], in: id, by: .user("alice"), now: fixture.now)
        try fixture.state.setRole(
            ChannelRole.moderator, granted: true, for: ["bob"], in: id, by: .user("alice"), now: fixture.now)
        #expect(fixture.state.channels[id]!.members["bob"]!.roles == ["helper", "moderator"])
        try fixture.state.setRole("helper", granted: false, for: ["bob"], in: id, by: .user("alice"), now: fixture.now)
        #expect(fixture.state.channels[id]!.members["bob"]!.roles == ["moderator"])
        #expect(
            chatError {
                try fixture.state.setRole(
                    "x", granted: true, for: ["carol"], in: id, by: .user("alice"), now: fixture.now)
            }?.kind == "invalidArgument(userIds)")
    }

    @Test func banRemovesMembershipAndBlocksRejoinUntilUnban() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.banMembers(["bob"], in: id, by: .user("alice"), now: fixture.now)
        #expect(fixture.channel(id, for: "bob").currentUserMembership == .banned)
        #expect(fixture.channel(id, for: "bob").memberCount == 1)
        #expect(chatError { try fixture.state.joinChannel(id, userId: "bob", now: fixture.now) }?.kind == "forbidden")
        #expect(
            chatError { try fixture.state.addMembers(["bob"], to: id, by: .user("alice"), now: fixture.now) }?.kind
                == "forbidden")
        try fixture.state.banMembers(["boss"], in: id, by: .user("alice"), now: fixture.now)
        #expect(chatError { try fixture.state.joinChannel(id, userId: "boss", now: fixture.now) }?.kind == "forbidden")
        try fixture.state.unbanMembers(["bob"], in: id, by: .user("alice"), now: fixture.now)
        #expect(fixture.channel(id, for: "bob").currentUserMembership == Membership.none)
        try fixture.state.joinChannel(id, userId: "bob", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").currentUserMembership == .member)
    }

    @Test func muteLastsForItsPeriod() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.muteMembers(["bob"], period: 600, in: id, by: .user("alice"), now: fixture.now)
        #expect(fixture.state.renderMember("bob", in: fixture.state.channels[id]!, now: fixture.now)?.isMuted == true)
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now) }?.kind
                == "forbidden")
        fixture.advance(600)
        _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now)
        try fixture.state.muteMembers(["bob"], period: -1, in: id, by: .user("alice"), now: fixture.now)
        fixture.advance(1e9)
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now) }?.kind
                == "forbidden")
        try fixture.state.muteMembers(["bob"], period: nil, in: id, by: .user("alice"), now: fixture.now)
        _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now)
    }

    @Test func channelMuteSilencesAllButModerators() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.muteChannel(id, period: 60, by: .user("alice"), now: fixture.now)
        #expect(fixture.channel(id, for: "bob").isMuted)
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now) }?.kind
                == "forbidden")
        _ = try fixture.state.sendMessage("mod", to: id, by: "alice", now: fixture.now)
        fixture.advance(60)
        #expect(!fixture.channel(id, for: "bob").isMuted)
        _ = try fixture.state.sendMessage("x", to: id, by: "bob", now: fixture.now)
    }

    @Test func rateLimitRefusesWithRetryAfter() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.setRateLimit(id, period: 600, limit: 2, window: 60, by: .user("alice"), now: fixture.now)
        #expect(fixture.channel(id, for: "bob").isRateLimited)
        #expect(fixture.channel(id, for: "bob").rateLimit == 2)
        _ = try fixture.state.sendMessage("1", to: id, by: "bob", now: fixture.now)
        fixture.advance(10)
        _ = try fixture.state.sendMessage("2", to: id, by: "bob", now: fixture.now)
        fixture.advance(10)
        let error = chatError { _ = try fixture.state.sendMessage("3", to: id, by: "bob", now: fixture.now) }
        #expect(error == .rateLimited(retryAfter: 40))
        #expect(fixture.channel(id, for: nil).lastSequence == 2)
        for _ in 0..<5 { _ = try fixture.state.sendMessage("mod", to: id, by: "alice", now: fixture.now) }
        fixture.advance(40)
        _ = try fixture.state.sendMessage("3", to: id, by: "bob", now: fixture.now)
        fixture.advance(600)
        #expect(!fixture.channel(id, for: "bob").isRateLimited)
        try fixture.state.setRateLimit(id, period: -1, limit: 1, window: 60, by: .user("alice"), now: fixture.now)
        try fixture.state.setRateLimit(id, period: 0, limit: nil, window: 0, by: .user("alice"), now: fixture.now)
        #expect(!fixture.channel(id, for: "bob").isRateLimited)
    }
}
