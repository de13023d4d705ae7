import Foundation
import ChatAPI
import ChatServer

/// Generates requests of every kind (``ChatRequest``) and console calls, each field drawn from
/// ``ExtremeValues``.
struct RequestGenerator {
    var values: ExtremeValues
    /// Cursors the server handed out, reused with other queries than their own.
    var cursors: [PageCursor] = []

    /// How many kinds of request ``request()`` draws from (every case of ``ChatRequest``).
    static let requestKinds = 49

    mutating func cursor() -> PageCursor? {
        cursors.isEmpty || values.chance(50) ? nil : values.pick(cursors)
    }

    mutating func channelType() -> ChannelType {
        values.pick([.standard, .private, .conversation, .broadcast, .community, .live])
    }

    mutating func draft() -> ChannelDraft {
        ChannelDraft(
            type: channelType(), channelId: values.chance(70) ? values.id() : nil, userIds: values.ids(),
            displayName: values.chance(50) ? values.string() : nil,
            avatarFileId: values.chance(20) ? values.string() : nil,
            tags: values.chance(70) ? [] : (0..<values.int(0..<25)).map { _ in values.string() },
            metadata: values.metadata())
    }

    mutating func messageDraft() -> MessageDraft {
        MessageDraft(
            channelId: values.id(), text: values.chance(60) ? "hello \(values.int(0..<100))" : values.string(),
            mentionedUserIds: values.chance(70) ? [] : values.ids(),
            metadata: values.chance(70) ? [:] : values.metadata(), messageId: messageId())
    }

    /// A chosen message id: none, one of a few (repeats, and ids taken by another user or in
    /// another channel), a server-looking one, or an extreme string (mostly refused).
    mutating func messageId() -> String? {
        switch values.int(0..<10) {
        case 0..<4: nil
        case 4..<7: "chosen-\(values.int(0..<5))"
        case 7: "message-\(values.int(1..<50))"
        case 8: values.id()
        default: values.string()
        }
    }

    mutating func filter(depth: Int = 3) -> Filter {
        let fields: [ChannelFilterField] = [
            .channelId, .type, .displayName, .tags, .memberCount, .messageCount, .createdAt, .updatedAt, .lastActivity,
            .lastMessageAt, .isDeleted, .isMuted, .isDistinct, .creator, .members, .joined, .membership, .unreadCount,
            .hasUnread, .hasMention, .metadata(values.string()),
        ]
        switch values.int(0..<(depth > 0 ? 6 : 3)) {
        case 0: return .all
        case 1, 2:
            let operand = values.json(depth: 3)
            let operation: FilterOperator = values.pick([
                .equal(operand), .notEqual(operand), .greater(operand), .greaterOrEqual(operand), .less(operand),
                .lessOrEqual(operand), .in([operand, values.json(depth: 1)]), .notIn([operand]),
                .exists(values.chance(50)),
                .contains(operand), .containsAll([operand]), .autocomplete(values.string()),
            ])
            return .condition(values.pick(fields), operation)
        case 3: return .and((0..<values.int(0..<3)).map { _ in filter(depth: depth - 1) })
        case 4: return .or((0..<values.int(0..<3)).map { _ in filter(depth: depth - 1) })
        default: return .nor((0..<values.int(0..<3)).map { _ in filter(depth: depth - 1) })
        }
    }

    mutating func sorting() -> [Sorting] {
        let keys: [ChannelSortingKey] = [
            .default, .createdAt, .updatedAt, .lastMessageAt, .lastActivity, .memberCount, .displayName, .unreadCount,
            .hasUnread, .channelId, .metadata(values.string()),
        ]
        return (0..<values.int(0..<4)).map { _ in Sorting(key: values.pick(keys), isAscending: values.chance(50)) }
    }

    mutating func position() -> MessagePageQuery.Position {
        switch values.int(0..<3) {
        case 0: .latest
        case 1: .before(sequence: values.integer())
        default: .after(sequence: values.integer())
        }
    }

    /// A request of a kind drawn uniformly from all of them.
    mutating func request() -> ChatRequest {
        let channelId = values.id()
        switch values.int(0..<Self.requestKinds) {
        case 0: return .createChannel(draft())
        case 1: return .joinChannel(channelId: channelId)
        case 2: return .leaveChannel(channelId: channelId)
        case 3: return .getChannel(channelId: channelId)
        case 4:
            return .queryChannels(
                ChannelListQuery(filter: filter(), sort: sorting(), pageSize: values.integer()), after: cursor())
        case 5:
            return .updateChannel(
                ChannelChanges(
                    channelId: channelId, displayName: values.chance(50) ? values.string() : nil,
                    avatarFileId: values.chance(20) ? values.string() : nil,
                    tags: values.chance(50) ? (0..<values.int(0..<25)).map { _ in values.string() } : nil,
                    metadata: values.chance(50) ? values.metadata() : nil))
        case 6: return .deleteChannel(channelId: channelId)
        case 7: return .muteChannel(channelId: channelId, period: values.duration())
        case 8: return .unmuteChannel(channelId: channelId)
        case 9:
            return .setRateLimit(
                channelId: channelId, period: values.duration(), limit: values.integer(), window: values.duration())
        case 10: return .removeRateLimit(channelId: channelId)
        case 11: return .addMembers(channelId: channelId, userIds: values.ids())
        case 12: return .removeMembers(channelId: channelId, userIds: values.ids())
        case 13:
            return .queryMembers(
                MemberListQuery(
                    channelId: channelId, filter: values.pick([.all, .mute, .ban]),
                    sortBy: values.pick([.firstCreated, .lastCreated]),
                    roles: values.chance(70) ? [] : [values.string()],
                    pageSize: values.integer(), userIds: values.chance(70) ? nil : values.ids()),
                after: cursor())
        case 14: return .banMembers(channelId: channelId, userIds: values.ids())
        case 15: return .unbanMembers(channelId: channelId, userIds: values.ids())
        case 16: return .muteMembers(channelId: channelId, userIds: values.ids(), period: values.duration())
        case 17: return .unmuteMembers(channelId: channelId, userIds: values.ids())
        case 18:
            return .addRole(
                values.chance(60) ? "moderator" : values.string(), channelId: channelId, userIds: values.ids())
        case 19:
            return .removeRole(
                values.chance(60) ? "moderator" : values.string(), channelId: channelId, userIds: values.ids())
        case 20, 21, 22: return .sendMessage(messageDraft())
        case 23: return .editMessage(messageId: values.id(), draft: messageDraft())
        case 24: return .deleteMessage(channelId: channelId, messageId: values.id())
        case 25:
            return .queryMessages(MessagePageQuery(channelId: channelId, position: position(), limit: values.integer()))
        case 26: return .flagMessage(channelId: channelId, messageId: values.id())
        case 27: return .unflagMessage(channelId: channelId, messageId: values.id())
        case 28: return .flagUser(channelId: channelId, userId: values.id())
        case 29: return .unflagUser(channelId: channelId, userId: values.id())
        case 30: return .flagReports(channelId: channelId)
        case 31: return .getModerationSettings(channelId: channelId)
        case 32:
            return .setModerationSettings(
                channelId: channelId,
                ModerationSettings(
                    blockedWords: (0..<values.int(0..<5)).map { _ in values.string() },
                    blockedWordAction: values.pick([.refuse, .mask]),
                    allowedURLDomains: values.chance(50) ? nil : (0..<values.int(0..<4)).map { _ in values.string() }))
        case 33: return .startReading(channelId: channelId)
        case 34: return .stopReading(channelId: channelId)
        case 35: return .startTyping(channelId: channelId)
        case 36: return .stopTyping(channelId: channelId)
        case 37: return .getUser(userId: values.id())
        case 38:
            let query =
                values.chance(50)
                ? UserSearchQuery(displayNamePrefix: values.string(), pageSize: values.integer())
                : UserSearchQuery(term: values.chance(20) ? nil : values.string(), pageSize: values.integer())
            return .searchUsers(query, after: cursor())
        case 39:
            return .updateCurrentUser(
                displayName: values.chance(50) ? values.string() : nil,
                metadata: values.chance(50) ? values.metadata() : nil)
        case 40: return .hasPermission(values.pick(Permission.allCases), channelId: channelId)
        case 41: return .muteMembers(channelId: channelId, userIds: ["bob", "carol"], period: values.duration())
        case 42: return .muteChannel(channelId: values.pick(values.channels), period: values.duration())
        case 44:
            return .addPushDevice(
                values.chance(50)
                    ? .apn(token: Data((0..<values.int(0..<40)).map { _ in UInt8(values.int(0..<256)) }))
                    : .firebase(token: values.string()))
        case 45: return .removePushDevice(id: values.chance(50) ? values.string() : nil)
        case 46: return .setChannelNotifications(channelId: channelId, enabled: values.chance(50))
        case 47: return .getChannelNotifications(channelId: channelId)
        case 43:
            return .queryMessages(
                MessagePageQuery(
                    channelId: values.pick([values.channels[0], values.channels[2]]), position: position(), limit: 100))
        default:
            return .setRateLimit(
                channelId: values.pick([values.channels[0], values.channels[2]]), period: values.duration(),
                limit: values.integer(),
                window: values.duration())
        }
    }

    /// A console call with extreme values: what it does, for the log, and the call.
    mutating func consoleCall() -> (String, @Sendable (ChatServer) async throws -> Void) {
        switch values.int(0..<6) {
        case 0:
            let (id, name, isAdmin) = (values.id(), values.chance(50) ? values.string() : nil, values.chance(10))
            return (
                "registerUser(\(id.prefix(40)), \(String(describing: name?.prefix(40))), \(isAdmin))",
                { _ = try await $0.registerUser(id: id, displayName: name, isAdmin: isAdmin) }
            )
        case 1:
            let (type, id, users, metadata) = (
                channelType(), values.chance(70) ? values.id() : nil, values.ids(), values.metadata()
            )
            return (
                "createChannel(\(type), \(String(describing: id?.prefix(40))), \(users.count) users)",
                {
                    _ = try await $0.createChannel(type: type, channelId: id, userIds: users, metadata: metadata)
                }
            )
        case 2:
            let changes = ChannelChanges(
                channelId: values.id(), displayName: values.chance(50) ? values.string() : nil,
                metadata: values.chance(50) ? values.metadata() : nil)
            return ("updateChannel(\(changes.channelId.prefix(40)))", { _ = try await $0.updateChannel(changes) })
        case 3:
            let (users, channel) = (values.ids(), values.id())
            return (
                "addMembers(\(users.count) users, \(channel.prefix(40)))",
                { try await $0.addMembers(users, to: channel) }
            )
        case 4:
            let (user, channel, text, mentions) = (
                values.id(), values.id(), values.string(), values.chance(70) ? [] : values.ids()
            )
            return (
                "sendMessage(as: \(user.prefix(40)), \(channel.prefix(40)))",
                {
                    _ = try await $0.sendMessage(as: user, channelId: channel, text: text, mentionedUserIds: mentions)
                }
            )
        default:
            let channel = values.id()
            return ("deleteChannel(\(channel.prefix(40)))", { try await $0.deleteChannel(channel) })
        }
    }
}
