/// A channel field a channel list can be sorted by.
///
/// Missing values (a `nil` field, an absent or `null` metadata field) sort as smaller than every
/// present value. Text sorts by its case- and diacritic-folded form, then by the original.
/// Metadata values of different JSON types sort as number < string < object < array < Boolean.
public enum ChannelSortingKey: Sendable, Hashable {
    /// `lastMessageAt`, or `createdAt` for a channel without messages. `Sorting.default` sorts by
    /// it descending (most recent first).
    case `default`
    /// `Channel.createdAt`.
    case createdAt
    /// `Channel.updatedAt`.
    case updatedAt
    /// `Channel.lastMessageAt` (missing before the first message).
    case lastMessageAt
    /// `Channel.lastActivity`.
    case lastActivity
    /// `Channel.memberCount`.
    case memberCount
    /// `Channel.displayName` (missing when unset).
    case displayName
    /// The viewing user's `Channel.unreadCount`.
    case unreadCount
    /// Whether the viewing user has unread messages (`false` < `true`).
    case hasUnread
    /// `Channel.channelId`.
    case channelId
    /// The metadata value at a dotted path, e.g. `"custom_score.value"`.
    case metadata(String)

    private static let named: [ChannelSortingKey] = [
        .default, .createdAt, .updatedAt, .lastMessageAt, .lastActivity, .memberCount,
        .displayName, .unreadCount, .hasUnread, .channelId,
    ]

    /// The key's name on the wire: `"createdAt"`, …, or `"metadata."` followed by the path.
    public var name: String {
        switch self {
        case .default: "default"
        case .createdAt: "createdAt"
        case .updatedAt: "updatedAt"
        case .lastMessageAt: "lastMessageAt"
        case .lastActivity: "lastActivity"
        case .memberCount: "memberCount"
        case .displayName: "displayName"
        case .unreadCount: "unreadCount"
        case .hasUnread: "hasUnread"
        case .channelId: "channelId"
        case .metadata(let path): MetadataPath.prefix + path
        }
    }

    /// The key named `name` on the wire, or `nil` for an unknown name.
    public init?(name: String) {
        guard
            let key = MetadataPath.key(
                named: name, builtIns: Self.named, nameOf: \.name, metadata: Self.metadata)
        else { return nil }
        self = key
    }

    /// This key's value for `channel`.
    package func sortValue(of channel: Channel) -> SortValue {
        switch self {
        case .default: .number((channel.lastMessageAt ?? channel.createdAt).timeIntervalSince1970)
        case .createdAt: .number(channel.createdAt.timeIntervalSince1970)
        case .updatedAt: .number(channel.updatedAt.timeIntervalSince1970)
        case .lastMessageAt:
            channel.lastMessageAt.map { .number($0.timeIntervalSince1970) } ?? .missing
        case .lastActivity: .number(channel.lastActivity.timeIntervalSince1970)
        case .memberCount: .number(Double(channel.memberCount))
        case .displayName: channel.displayName.map(SortValue.text) ?? .missing
        case .unreadCount: .number(Double(channel.unreadCount))
        case .hasUnread: .bool(channel.unreadCount > 0)
        case .channelId: .text(channel.channelId)
        case .metadata(let path): SortValue(JSON.object(channel.metadata)[path: path])
        }
    }
}

extension ChannelSortingKey: Codable {
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let key = ChannelSortingKey(name: name) else {
            throw ChatError.invalidArgument(field: "sort", reason: "unknown sorting key '\(name)'")
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
