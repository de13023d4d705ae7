import Foundation

/// A typed filter key: `Value` is the operand type the field accepts, so
/// `.equal(.type, to: .community)` and `.greater(.memberCount, than: 10)` type-check while
/// `.equal(.memberCount, to: "ten")` does not.
///
/// A string literal is a metadata key (`"state"`, `"custom_score.value"`) with `JSON` operands.
/// `tags` and `members` are arrays of strings whose operands are single strings (array-field
/// semantics, see `Filter`).
public struct ChannelFilterKey<Value: FilterValue>: Sendable, Hashable {
    /// The field the key names.
    public let field: ChannelFilterField

    init(_ field: ChannelFilterField) {
        self.field = field
    }
}

extension ChannelFilterKey where Value == String {
    /// The channel id.
    public static var channelId: Self { .init(.channelId) }
    /// The display name (missing when unset).
    public static var displayName: Self { .init(.displayName) }
    /// The creator's user id (missing when unset).
    public static var creator: Self { .init(.creator) }
    /// The channel's tags; operands are single tags.
    public static var tags: Self { .init(.tags) }
    /// The channel's member ids; operands are single user ids.
    public static var members: Self { .init(.members) }
}

extension ChannelFilterKey where Value == ChannelType {
    /// The channel type.
    public static var type: Self { .init(.type) }
}

extension ChannelFilterKey where Value == Membership {
    /// The viewing user's membership.
    public static var membership: Self { .init(.membership) }
}

extension ChannelFilterKey where Value == Int {
    /// The number of members.
    public static var memberCount: Self { .init(.memberCount) }
    /// The number of messages.
    public static var messageCount: Self { .init(.messageCount) }
    /// The viewing user's unread count.
    public static var unreadCount: Self { .init(.unreadCount) }
}

extension ChannelFilterKey where Value == Date {
    /// When the channel was created.
    public static var createdAt: Self { .init(.createdAt) }
    /// When the channel's fields last changed.
    public static var updatedAt: Self { .init(.updatedAt) }
    /// The last activity.
    public static var lastActivity: Self { .init(.lastActivity) }
    /// When the last message was sent (missing before the first message).
    public static var lastMessageAt: Self { .init(.lastMessageAt) }
}

extension ChannelFilterKey where Value == Bool {
    /// Whether the channel was deleted.
    public static var isDeleted: Self { .init(.isDeleted) }
    /// Whether the channel is muted.
    public static var isMuted: Self { .init(.isMuted) }
    /// Whether the channel is distinct (unique by member set).
    public static var isDistinct: Self { .init(.isDistinct) }
    /// Whether the viewing user is a member.
    public static var joined: Self { .init(.joined) }
    /// Whether the viewing user has unread messages.
    public static var hasUnread: Self { .init(.hasUnread) }
    /// Whether an unread message mentions the viewing user.
    public static var hasMention: Self { .init(.hasMention) }
}

extension ChannelFilterKey where Value == JSON {
    /// The metadata field at a dotted `path` of object keys.
    public static func metadata(_ path: String) -> Self { .init(.metadata(path)) }
}

extension ChannelFilterKey: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral,
    ExpressibleByExtendedGraphemeClusterLiteral
where Value == JSON {
    /// A metadata key: `"state"` is `.metadata("state")`.
    public init(stringLiteral path: String) {
        self.init(.metadata(path))
    }
}
