import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct ChannelModerationTests {
    let fixture = ChatFixture()

    /// The seed's "Channel Membership" flow: a banned user's channel object shows `.banned`,
    /// and they cannot come back until unbanned.
    @Test func bannedUserSeesMembershipLiveAndCannotRejoinUntilUnbanned() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeClub("club", by: alice, members: ["bob"])
        let repository = ChannelRepository(client: bob)
        let channel = await repository.getChannel("club").loaded()
        let memberships = Recorder<Membership>()
        let token = channel.observe(on: .synchronous) { object, _ in
            if let membership = object.snapshot?.currentUserMembership { memberships.append(membership) }
        }
        let myChannels = await repository.getChannels().communityType(
            with: CommunityChannelQueryBuilder(filter: .userIsMember)
        ).query().loaded()
        #expect(channel.snapshot?.currentUserMembership == .member)
        #expect(myChannels.snapshots.map(\.channelId) == ["club"])

        let moderation = ChannelModeration(client: alice, channelId: "club")
        try await moderation.banMembers(["bob"])
        await bob.synchronize()
        #expect(channel.snapshot?.currentUserMembership == .banned)
        #expect(memberships.values.last == .banned)
        #expect(myChannels.snapshots.isEmpty)
        #expect(await chatError { _ = try await repository.joinChannel(channelId: "club") }?.cause == "forbidden")
        let participation = ChannelParticipation(client: alice, channelId: "club")
        #expect(await chatError { try await participation.addMembers(["bob"]) }?.cause == "forbidden")
        #expect(await chatError { try await send("let me in", in: "club", by: bob) }?.cause == "forbidden")
        #expect(channel.snapshot?.currentUserMembership == .banned)

        try await moderation.unbanMembers(["bob"])
        await bob.synchronize()
        #expect(channel.snapshot?.currentUserMembership == Membership.none)
        _ = try await repository.joinChannel(channelId: "club")
        #expect(channel.snapshot?.currentUserMembership == .member)
        #expect(myChannels.snapshots.map(\.channelId) == ["club"])
        #expect(memberships.values.suffix(3) == [.banned, .none, .member])
        token.invalidate()
    }

    @Test func mutedMemberCannotSendUntilUnmuted() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeClub("club", by: alice, members: ["bob"])
        let moderation = ChannelModeration(client: alice, channelId: "club")
        let muted = await ChannelParticipation(client: bob, channelId: "club").getMembers(filter: .mute).loaded()

        let records = try await moderation.muteMembers(["bob"], mutePeriod: 600)
        #expect(records.first?.isMuted == true)
        #expect(records.first?.mutedUntil != nil)
        await bob.synchronize()
        #expect(muted.snapshots.map(\.userId) == ["bob"])
        #expect(await chatError { try await send("hello?", in: "club", by: bob) }?.cause == "forbidden")
        #expect(try await bob.hasPermission(.sendMessage, forChannel: "club") == false)

        try await moderation.unmuteMembers(["bob"])
        await bob.synchronize()
        #expect(muted.snapshots.isEmpty)
        try await send("back", in: "club", by: bob)
        #expect(
            await chatError { try await moderation.muteMembers(["bob"], mutePeriod: -5) }?.cause == "invalidArgument")
    }

    @Test func channelMuteSilencesMembersButNotModerators() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeClub("club", by: alice, members: ["bob"])
        let bobChannel = await ChannelRepository(client: bob).getChannel("club").loaded()
        let moderation = ChannelModeration(client: alice, channelId: "club")

        let mutedChannel = try await moderation.muteChannel(period: -1)
        #expect(mutedChannel.isMuted)
        await bob.synchronize()
        #expect(bobChannel.snapshot?.isMuted == true)
        #expect(await chatError { try await send("hi", in: "club", by: bob) }?.cause == "forbidden")
        try await send("announcement", in: "club", by: alice)

        try await moderation.unmuteChannel()
        await bob.synchronize()
        #expect(bobChannel.snapshot?.isMuted == false)
        try await send("hi", in: "club", by: bob)
        let bobModeration = ChannelModeration(client: bob, channelId: "club")
        #expect(await chatError { try await bobModeration.muteChannel(period: 60) }?.cause == "forbidden")
    }

    @Test func rateLimitRefusesExtraMessagesUntilRemoved() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeClub("club", by: alice, members: ["bob"])
        let aliceChannel = await ChannelRepository(client: alice).getChannel("club").loaded()
        let bobChannel = await ChannelRepository(client: bob).getChannel("club").loaded()
        let moderation = ChannelModeration(client: alice, channelId: "club")

        let limited = try await moderation.setRateLimit(period: 600, limit: 2, window: 60)
        #expect(limited.isRateLimited)
        #expect(limited.rateLimit == 2)
        #expect(aliceChannel.snapshot?.isRateLimited == true)
        await bob.synchronize()
        #expect(bobChannel.snapshot?.isRateLimited == true)
        try await send("1", in: "club", by: bob)
        try await send("2", in: "club", by: bob)
        #expect(await chatError { try await send("3", in: "club", by: bob) }?.cause == "rateLimited")
        for text in ["a", "b", "c"] { try await send(text, in: "club", by: alice) }  // moderators are exempt

        let unlimited = try await moderation.removeRateLimit()
        #expect(!unlimited.isRateLimited)
        #expect(aliceChannel.snapshot?.isRateLimited == false)
        try await send("3", in: "club", by: bob)
        #expect(
            await chatError { try await moderation.setRateLimit(period: 600, limit: 0, window: 60) }?.cause
                == "invalidArgument")
        let bobModeration = ChannelModeration(client: bob, channelId: "club")
        #expect(
            await chatError { try await bobModeration.setRateLimit(period: 60, limit: 1, window: 1) }?.cause
                == "forbidden")
    }

    @Test func moderatorRoleGrantsModerationAndIsSeenLive() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let carol = try await fixture.client("carol")
        try await makeClub("club", by: alice, members: ["bob", "carol"])
        let bobModeration = ChannelModeration(client: bob, channelId: "club")
        let carolList = await ChannelParticipation(client: carol, channelId: "club").getMembers().loaded()
        #expect(await chatError { try await bobModeration.banMembers(["carol"]) }?.cause == "forbidden")

        let records = try await ChannelModeration(client: alice, channelId: "club").addRole(
            ChannelRole.moderator, userIds: ["bob"])
        #expect(records.first?.roles == ["moderator"])
        await carol.synchronize()
        #expect(carolList.snapshots.first { $0.userId == "bob" }?.roles == ["moderator"])
        #expect(try await bob.hasPermission(.banMember, forChannel: "club"))
        try await bobModeration.muteMembers(["carol"], mutePeriod: 60)
        try await bobModeration.unmuteMembers(["carol"])

        try await ChannelModeration(client: alice, channelId: "club").removeRole(
            ChannelRole.moderator, userIds: ["bob"])
        await carol.synchronize()
        #expect(carolList.snapshots.first { $0.userId == "bob" }?.roles == [])
        #expect(await chatError { try await bobModeration.banMembers(["carol"]) }?.cause == "forbidden")
        #expect(await chatError { try await bobModeration.addRole("x", userIds: ["carol"]) }?.cause == "forbidden")
    }

    /// The ban reaches a third member's list through events, with the channel's member count.
    @Test func banIsSeenLiveByOtherMembers() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let carol = try await fixture.client("carol")
        try await makeClub("club", by: alice, members: ["bob", "carol"])
        let carolSide = ChannelParticipation(client: carol, channelId: "club")
        let members = await carolSide.getMembers().loaded()
        let banned = await carolSide.getMembers(filter: .ban).loaded()
        let channel = await ChannelRepository(client: carol).getChannel("club").loaded()
        #expect(channel.snapshot?.memberCount == 3)
        try await ChannelModeration(client: alice, channelId: "club").banMembers(["bob"])
        await carol.synchronize()
        #expect(members.snapshots.map(\.userId) == ["alice", "carol"])
        #expect(banned.snapshots.map(\.userId) == ["bob"])
        #expect(channel.snapshot?.memberCount == 2)
        _ = bob
    }
}
