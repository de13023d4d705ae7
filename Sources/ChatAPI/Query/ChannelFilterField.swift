/// A channel field that a `Filter` condition tests: a built-in field or a metadata path.
///
/// Fields that depend on the viewing user (`joined`, `membership`, `unreadCount`, `hasUnread`,
/// `hasMention`) read the viewer's fields of the `Channel` value being tested. `members` is the
/// channel's member set, which a `Channel` value does not carry; the evaluator asks for it (see
/// `Filter.matches(_:isMember:)`).
public enum ChannelFilterField: Sendable, Hashable {
    /// `Channel.channelId` (string).
    case channelId
    /// `Channel.type` (a `ChannelType` raw value).
    case type
    /// `Channel.displayName` (string, missing when `nil`).
    case displayName
    /// `Channel.tags` (array of strings).
    case tags
    /// `Channel.memberCount` (number).
    case memberCount
    /// `Channel.messageCount` (number).
    case messageCount
    /// `Channel.createdAt` (date).
    case createdAt
    /// `Channel.updatedAt` (date).
    case updatedAt
    /// `Channel.lastActivity` (date).
    case lastActivity
    /// `Channel.lastMessageAt` (date, missing before the first message).
    case lastMessageAt
    /// `Channel.isDeleted` (Boolean).
    case isDeleted
    /// `Channel.isMuted` (Boolean).
    case isMuted
    /// `Channel.isDistinct` (Boolean).
    case isDistinct
    /// `Channel.creatorId` (string, missing when `nil`).
    case creator
    /// The ids of the channel's members (a set of strings, supplied to the evaluator).
    case members
    /// Whether the viewing user is a member (Boolean; `currentUserMembership == .member`).
    case joined
    /// `Channel.currentUserMembership` (a `Membership` raw value).
    case membership
    /// `Channel.unreadCount` of the viewing user (number).
    case unreadCount
    /// Whether the viewing user has unread messages (Boolean; `unreadCount > 0`).
    case hasUnread
    /// `Channel.hasMention` of the viewing user (Boolean).
    case hasMention
    /// A field of `Channel.metadata` at a dotted path of object keys, such as
    /// `"custom_score.value"`.
    case metadata(String)

    /// The value type of a field, which decides the operators and operands it accepts.
    enum Kind: Sendable, Hashable {
        case string, channelType, membership, number, date, bool, stringArray, members, json
    }

    var kind: Kind {
        switch self {
        case .channelId, .displayName, .creator: .string
        case .type: .channelType
        case .membership: .membership
        case .memberCount, .messageCount, .unreadCount: .number
        case .createdAt, .updatedAt, .lastActivity, .lastMessageAt: .date
        case .isDeleted, .isMuted, .isDistinct, .joined, .hasUnread, .hasMention: .bool
        case .tags: .stringArray
        case .members: .members
        case .metadata: .json
        }
    }

    /// Whether the field can be missing (`nil`) on a channel: optional built-ins and metadata.
    var isOptional: Bool {
        switch self {
        case .displayName, .lastMessageAt, .creator, .metadata: true
        default: false
        }
    }

    /// The built-in fields, in declaration order.
    static let builtIns: [ChannelFilterField] = [
        .channelId, .type, .displayName, .tags, .memberCount, .messageCount, .createdAt,
        .updatedAt, .lastActivity, .lastMessageAt, .isDeleted, .isMuted, .isDistinct, .creator,
        .members, .joined, .membership, .unreadCount, .hasUnread, .hasMention,
    ]

    /// The key on the wire and in error messages: the built-in name (`"memberCount"`) or
    /// `"metadata."` followed by the path.
    public var name: String {
        switch self {
        case .channelId: "channelId"
        case .type: "type"
        case .displayName: "displayName"
        case .tags: "tags"
        case .memberCount: "memberCount"
        case .messageCount: "messageCount"
        case .createdAt: "createdAt"
        case .updatedAt: "updatedAt"
        case .lastActivity: "lastActivity"
        case .lastMessageAt: "lastMessageAt"
        case .isDeleted: "isDeleted"
        case .isMuted: "isMuted"
        case .isDistinct: "isDistinct"
        case .creator: "creator"
        case .members: "members"
        case .joined: "joined"
        case .membership: "membership"
        case .unreadCount: "unreadCount"
        case .hasUnread: "hasUnread"
        case .hasMention: "hasMention"
        case .metadata(let path): MetadataPath.prefix + path
        }
    }

    /// The field a wire key names, or `nil` for an unknown key.
    init?(name: String) {
        guard
            let field = MetadataPath.key(
                named: name, builtIns: Self.builtIns, nameOf: \.name, metadata: Self.metadata)
        else { return nil }
        self = field
    }
}
