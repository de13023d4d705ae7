import ChatAPI
import Foundation

/// Sample values with every field set, for Codable and event tests.
enum Fixtures {
    static let date = Date(timeIntervalSince1970: 1_700_000_000.25)

    static let channel = Channel(
        channelId: "c1", type: .community, isDistinct: false,
        metadata: ["state": "LA", "custom_score": ["value": 7.5], "list": [1, "x", nil]],
        tags: ["ios", "news"], isMuted: true, isRateLimited: true, rateLimit: 5,
        rateLimitWindow: 60, displayName: "Élan", memberCount: 3, messageCount: 12,
        lastActivity: date, createdAt: date.addingTimeInterval(-100),
        updatedAt: date.addingTimeInterval(-50), avatarFileId: "f1", creatorId: "alice",
        isDeleted: false, lastMessageAt: date, lastSequence: 12,
        currentUserMembership: .member, readSequence: 9, hasMention: true)

    static let member = ChannelMember(
        channelId: "c1", userId: "bob", roles: ["moderator"], membership: .member,
        mutedUntil: date.addingTimeInterval(600), isMuted: true, joinedAt: date, readSequence: 4)

    static let message = Message(
        messageId: "m1", channelId: "c1", sequence: 12, userId: "alice", text: "hi @bob",
        mentionedUserIds: ["bob"], metadata: ["lang": "en"], createdAt: date,
        editedAt: date.addingTimeInterval(5), isDeleted: false)

    static let user = User(
        userId: "alice", displayName: "Alice", metadata: ["team": "ios"], isAdmin: true,
        createdAt: date, updatedAt: date.addingTimeInterval(1))

    static let query = ChannelListQuery(
        filter: .and([
            .containMembers(userIds: ["alice"]), .equal(.type, to: .community),
            .equal("state", to: "LA"),
        ]),
        sort: [Sorting(key: .lastMessageAt, isAscending: false), Sorting(key: .metadata("x.y"))],
        pageSize: 20)

    static let channelCursor = query.cursor(after: channel)
    static let memberQuery = MemberListQuery(
        channelId: "c1", filter: .mute, sortBy: .lastCreated, roles: ["moderator"], pageSize: 10)
    static let userQuery = UserSearchQuery(displayNamePrefix: "al", pageSize: 5)
    static let draft = MessageDraft(
        channelId: "c1", text: "hello", mentionedUserIds: ["bob"], metadata: ["k": true])

    static let requests: [ChatRequest] = [
        .createChannel(
            ChannelDraft(
                type: .live, channelId: "c9", userIds: ["bob"], displayName: "Ops",
                avatarFileId: "a", tags: ["t"], metadata: ["sdk_type": "ios"])),
        .joinChannel(channelId: "c1"),
        .leaveChannel(channelId: "c1"),
        .getChannel(channelId: "c1"),
        .queryChannels(query, after: nil),
        .queryChannels(query, after: channelCursor),
        .updateChannel(
            ChannelChanges(channelId: "c1", displayName: "New", tags: ["a"], metadata: ["h": "w"])),
        .deleteChannel(channelId: "c1"),
        .muteChannel(channelId: "c1", period: -1),
        .unmuteChannel(channelId: "c1"),
        .setRateLimit(channelId: "c1", period: 600, limit: 5, window: 60),
        .removeRateLimit(channelId: "c1"),
        .addMembers(channelId: "c1", userIds: ["u1", "u2"]),
        .removeMembers(channelId: "c1", userIds: ["u3"]),
        .queryMembers(memberQuery, after: memberQuery.cursor(after: member)),
        .banMembers(channelId: "c1", userIds: ["u"]),
        .unbanMembers(channelId: "c1", userIds: ["u"]),
        .muteMembers(channelId: "c1", userIds: ["u"], period: 600),
        .unmuteMembers(channelId: "c1", userIds: ["u"]),
        .addRole("moderator", channelId: "c1", userIds: ["u"]),
        .removeRole("moderator", channelId: "c1", userIds: ["u"]),
        .sendMessage(draft),
        .editMessage(messageId: "m1", draft: draft),
        .deleteMessage(channelId: "c1", messageId: "m1"),
        .queryMessages(
            MessagePageQuery(channelId: "c1", position: .before(sequence: 40), limit: 20)),
        .startReading(channelId: "c1"),
        .stopReading(channelId: "c1"),
        .startTyping(channelId: "c1"),
        .stopTyping(channelId: "c1"),
        .getUser(userId: "bob"),
        .searchUsers(userQuery, after: userQuery.cursor(after: user)),
        .updateCurrentUser(displayName: "Al", metadata: nil),
        .hasPermission(.editChannel, channelId: "c1"),
        .flagMessage(channelId: "c1", messageId: "m1"),
        .unflagMessage(channelId: "c1", messageId: "m1"),
        .flagUser(channelId: "c1", userId: "bob"),
        .unflagUser(channelId: "c1", userId: "bob"),
        .flagReports(channelId: "c1"),
        .getModerationSettings(channelId: "c1"),
        .setModerationSettings(
            channelId: "c1",
            ModerationSettings(blockedWords: ["darn"], blockedWordAction: .mask, allowedURLDomains: ["example.com"])),
        .addPushDevice(.apn(token: Data([0x0a, 0xff, 0x10]))),
        .removePushDevice(id: nil),
        .setChannelNotifications(channelId: "c1", enabled: false),
        .getChannelNotifications(channelId: "c1"),
    ]

    static let responses: [ChatResponse] = [
        .empty,
        .channel(channel),
        .channels(Page(items: [channel], next: channelCursor, hasNext: true)),
        .members([member]),
        .memberPage(Page(items: [member], next: nil, hasNext: false)),
        .message(message),
        .messages(MessagePage(messages: [message], hasPrevious: true, hasNext: false)),
        .user(user),
        .users(Page(items: [user], next: userQuery.cursor(after: user), hasNext: false)),
        .bool(true),
        .flagReports([
            FlagReport(subject: .message(messageId: "m1"), flaggedBy: ["bob"]),
            FlagReport(subject: .user(userId: "carol"), flaggedBy: []),
        ]),
        .moderationSettings(ModerationSettings(blockedWords: ["x"])),
    ]

    static let events: [ChatEvent] = [
        .channelCreated(channel),
        .channelUpdated(channel),
        .channelDeleted(channel),
        .memberAdded(member, channel: channel),
        .memberRemoved(member, channel: channel),
        .memberBanned(member, channel: channel),
        .memberUnbanned(member, channel: channel),
        .memberMuted(member),
        .memberUnmuted(member),
        .memberRoleChanged(member),
        .messageNew(message, channel: channel),
        .messageUpdated(message),
        .messageDeleted(message),
        .readMarkerMoved(member, channel: channel),
        .typingStarted(channelId: "c1", userId: "bob"),
        .typingStopped(channelId: "c1", userId: "bob"),
        .userUpdated(user),
        .presenceChanged(user),
    ]

    static let errors: [ChatError] = [
        .notFound("channel 'x'"),
        .alreadyExists("channel 'x'"),
        .notAllowed("conversations cannot be joined"),
        .forbidden("only admins send to broadcast channels"),
        .invalidArgument(field: "pageSize", reason: "must be between 1 and 100"),
        .limitExceeded("metadata is over 100 KB"),
        .rateLimited(retryAfter: 12.5),
        .unavailable("not connected"),
    ]
}

/// The case name of a value of an enum with associated values.
func caseName(_ value: Any) -> String {
    Mirror(reflecting: value).children.first?.label ?? String(describing: value)
}
