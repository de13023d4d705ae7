import ChatServer
import Foundation
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for participation, moderation and permissions: members
/// in both forms, the moderation calls, `hasPermission`, and reading in its plain and async forms.
/// Snippet by snippet, written as a user's app would write it: only `import LiveChannels` and
/// `import ChatServer`, no `@testable`. Every name, label and shape pinned there must compile here,
/// and every behaviour stated there is asserted. The helpers the contract suites share are in
/// `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct ParticipationContractTests {

    @Test func participationMembersAndBothForms() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        for user in ["bob", "carol", "user1", "user2", "user3"] {
            try await server.registerUser(id: user, displayName: user.capitalized, isAdmin: false)
        }
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let participation = ChannelParticipation(client: alice, channelId: "channel1")
        let members: LiveCollection<ChannelMember> =
            participation.getMembers(filter: .all, sortBy: .firstCreated, roles: [])
        try await participation.addMembers(["bob"])
        try await participation.addMembers(["carol"])
        for await update in members.updates where ids(update.snapshots) == ["alice", "bob", "carol"] { break }
        let newest = participation.getMembers(filter: .all, sortBy: .lastCreated, roles: [])
        for await update in newest.updates where update.loadingStatus == .loaded { break }
        #expect(ids(newest.snapshots) == ["carol", "bob", "alice"])
        let moderators = participation.getMembers(filter: .all, sortBy: .firstCreated, roles: ["moderator"])
        for await update in moderators.updates where update.loadingStatus == .loaded { break }
        #expect(ids(moderators.snapshots) == ["alice"])

        func isMember(_ id: String) -> Bool { server.members(channelId: "channel1").contains { $0.userId == id } }
        try await participation.addMembers(["user1", "user2"])
        #expect(isMember("user1") && isMember("user2"))
        try await participation.removeMembers(["user1", "user2"])
        #expect(!isMember("user1") && !isMember("user2"))
        participation.addMembers(["user1", "user2"], completion: nil)
        for await update in members.updates where ids(update.snapshots) == ["alice", "bob", "carol", "user1", "user2"] {
            break
        }
        try await participation.addMembers(["user3"])
        #expect(isMember("user3"))
        try await participation.removeMembers(["user3"])
        #expect(!isMember("user3"))
        try await participation.addMembers(["user3"])
        participation.removeMembers(["user3"], completion: nil)
        #expect(await eventually { !isMember("user3") })
        participation.removeMembers(["user2"], completion: nil)
        for await update in members.updates where !ids(update.snapshots).contains("user2") { break }

        let added = await withCheckedContinuation { continuation in
            participation.addMembers(["user2"]) { success, error in
                continuation.resume(returning: (success, error == nil))
            }
        }
        #expect(added == (true, true))
        let removed = await withCheckedContinuation { continuation in
            participation.removeMembers(["user2"]) { success, error in
                continuation.resume(returning: (success, error == nil))
            }
        }
        #expect(removed == (true, true))
        let failed = await withCheckedContinuation { continuation in
            ChannelParticipation(client: alice, channelId: "missing").addMembers(["bob"]) { success, error in
                continuation.resume(returning: (success, error is ChatError))
            }
        }
        #expect(failed == (false, true))

        let moderation = ChannelModeration(client: alice, channelId: "channel1")
        let muted = participation.getMembers(filter: .mute, sortBy: .firstCreated, roles: [])
        let banned = participation.getMembers(filter: .ban, sortBy: .firstCreated, roles: [])
        try await moderation.muteMembers(["bob"], mutePeriod: 600)
        try await moderation.banMembers(["carol"])
        for await update in muted.updates where ids(update.snapshots) == ["bob"] { break }
        for await update in banned.updates where ids(update.snapshots) == ["carol"] { break }
        for await update in members.updates where !ids(update.snapshots).contains("carol") { break }
        #expect(muted.object(at: 0)?.isMuted == true)
        #expect(banned.object(at: 0)?.membership == .banned)
    }

    @Test func moderationCalls() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        try await server.registerUser(id: "u", displayName: "U", isAdmin: false)
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        builder.setUserIds(["bob", "u"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let moderation = ChannelModeration(client: alice, channelId: "channel1")
        func member(_ id: String) -> ChannelMember? { server.members(channelId: "channel1").first { $0.userId == id } }

        try await moderation.banMembers(["u"])
        #expect(member("u")?.membership == .banned)
        try await moderation.unbanMembers(["u"])
        #expect(member("u")?.membership != .banned)
        try await ChannelParticipation(client: alice, channelId: "channel1").addMembers(["u"])

        try await moderation.muteMembers(["u"], mutePeriod: 600)
        #expect(member("u")?.isMuted == true)
        try await moderation.unmuteMembers(["u"])
        #expect(member("u")?.isMuted == false)

        try await moderation.addRole("moderator", userIds: ["u"])
        #expect(member("u")?.roles.contains("moderator") == true)
        try await moderation.removeRole("moderator", userIds: ["u"])
        #expect(member("u")?.roles.contains("moderator") == false)

        try await moderation.setRateLimit(period: 600, limit: 1, window: 60)  // seconds
        #expect(server.channel("channel1")?.isRateLimited == true)
        let messages = MessageRepository(client: bob)
        _ = try await messages.sendMessage(channelId: "channel1", text: "one", mentionedUserIds: [])
        let error = await thrownChatError {
            _ = try await messages.sendMessage(channelId: "channel1", text: "two", mentionedUserIds: [])
        }
        guard case .rateLimited = error else {
            Issue.record("over the rate limit: expected rateLimited, got \(String(describing: error))")
            return
        }
        try await moderation.removeRateLimit()
        #expect(server.channel("channel1")?.isRateLimited == false)
        _ = try await messages.sendMessage(channelId: "channel1", text: "two", mentionedUserIds: [])
        try await moderation.setRateLimit(period: 600, limit: 5, window: 60)  // seconds
        #expect(server.channel("channel1")?.isRateLimited == true)
        #expect(server.channel("channel1")?.rateLimit == 5)
        try await moderation.removeRateLimit()
        try await moderation.setRateLimit(period: -1, limit: 5, window: 60)  // period -1 = permanent
        #expect(server.channel("channel1")?.isRateLimited == true)
        #expect(server.channel("channel1")?.rateLimit == 5)
        try await moderation.removeRateLimit()

        // Only moderators moderate.
        let forbidden = await thrownChatError {
            try await ChannelModeration(client: bob, channelId: "channel1").banMembers(["u"])
        }
        guard case .forbidden = forbidden else {
            Issue.record("a member banning: expected forbidden, got \(String(describing: forbidden))")
            return
        }
    }

    @Test func permissions() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)

        let allowed: Bool = try await alice.hasPermission(.editChannel, forChannel: "channel1")
        #expect(allowed)  // the creator moderates
        for permission in [Permission.editChannel, .sendMessage, .addMember, .removeMember, .banMember, .muteMember] {
            #expect(try await alice.hasPermission(permission, forChannel: "channel1"), "\(permission)")
        }
        #expect(try await bob.hasPermission(.sendMessage, forChannel: "channel1"))
        #expect(try await !bob.hasPermission(.editChannel, forChannel: "channel1"))
        #expect(try await !bob.hasPermission(.banMember, forChannel: "channel1"))
        #expect(try await !bob.hasPermission(.muteMember, forChannel: "channel1"))
        try await ChannelModeration(client: alice, channelId: "channel1").muteMembers(["bob"], mutePeriod: 600)
        #expect(try await !bob.hasPermission(.sendMessage, forChannel: "channel1"))
    }

    @Test func readingPlainAndAsyncForms() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let builder = CommunityChannelBuilder()
        builder.setId("channel1")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let channelObject = ChannelRepository(client: alice).getChannel("channel1")
        let participation = ChannelParticipation(client: alice, channelId: "channel1")
        let bobMessages = MessageRepository(client: bob)

        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "1", mentionedUserIds: [])
        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "2", mentionedUserIds: [])
        for await value in channelObject.values where value?.unreadCount == 2 { break }

        Self.startReadingFireAndForget(participation)  // the plain form
        for await value in channelObject.values where value?.unreadCount == 0 { break }
        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "3", mentionedUserIds: [])
        for await value in channelObject.values where value?.lastMessageAt != nil && value?.messageCount == 3 { break }
        #expect(channelObject.snapshot?.unreadCount == 0)  // the marker follows while reading

        Self.stopReadingFireAndForget(participation)
        try await participation.stopReading()  // from async code, ordered after the plain call
        _ = try await bobMessages.sendMessage(channelId: "channel1", text: "4", mentionedUserIds: [])
        for await value in channelObject.values where value?.unreadCount == 1 { break }
        #expect(server.unreadCount(userId: "alice", channelId: "channel1") == 1)

        try await participation.startReading()
        for await value in channelObject.values where value?.unreadCount == 0 { break }
        #expect(server.unreadCount(userId: "alice", channelId: "channel1") == 0)
        try await participation.stopReading()
    }

    private nonisolated static func startReadingFireAndForget(_ participation: ChannelParticipation) {
        participation.startReading()  // fire-and-forget
    }

    private nonisolated static func stopReadingFireAndForget(_ participation: ChannelParticipation) {
        participation.stopReading()  // likewise
    }
}
