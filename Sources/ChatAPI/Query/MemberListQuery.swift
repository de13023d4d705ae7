/// A page-wise member list of one channel, in the style of Amity's
/// `getMembers(filter:sortBy:roles:)`. Ties of `joinedAt` are broken by `userId` ascending.
public struct MemberListQuery: Sendable, Hashable, Codable, PageOrdering {
    /// The channel.
    public var channelId: String
    /// Which members.
    public var filter: MemberFilter
    /// Their order.
    public var sortBy: MemberSort
    /// Only members with at least one of these roles; empty means any.
    public var roles: [String]
    /// Members per page, 1…`ChannelListQuery.maximumPageSize`.
    public var pageSize: Int
    /// Only these users; `nil` means any (a single member's controller asks for one).
    public var userIds: [String]?

    /// A query; by default current members of any role, earliest joined first, 20 per page.
    public init(
        channelId: String, filter: MemberFilter = .all, sortBy: MemberSort = .firstCreated,
        roles: [String] = [], pageSize: Int = 20, userIds: [String]? = nil
    ) {
        self.userIds = userIds
        self.channelId = channelId
        self.filter = filter
        self.sortBy = sortBy
        self.roles = roles
        self.pageSize = pageSize
    }

    /// Whether `member` belongs to the list. Muting is read from `member.isMuted`, as of when
    /// the value was produced.
    public func matches(_ member: ChannelMember) -> Bool {
        guard member.channelId == channelId else { return false }
        let inFilter =
            switch filter {
            case .all: member.membership == .member
            case .mute: member.membership == .member && member.isMuted
            case .ban: member.membership == .banned
            }
        return inFilter && (roles.isEmpty || member.roles.contains(where: roles.contains))
            && (userIds.map { $0.contains(member.userId) } ?? true)
    }

    /// Throws `ChatError.invalidArgument(field: "pageSize")` when the page size is out of range.
    public func validate() throws {
        try PageSize.validate(pageSize)
    }

    /// Identifies the query's sort order: equal for queries whose pages can share a cursor.
    public var orderingFingerprint: String { "members[\(channelId),\(sortBy.rawValue)]" }

    /// The key a member sorts by in this query (its keyset cursor).
    public func sortKey(for member: ChannelMember) -> SortKey {
        SortKey(
            values: [.number(member.joinedAt.timeIntervalSince1970)],
            ascending: [sortBy == .firstCreated], id: member.userId)
    }
}

extension MemberListQuery {
    /// Decodes a query; every field but `channelId` may be left out and takes the initializer's
    /// default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelId: try container.decode(String.self, forKey: .channelId),
            filter: try container.decodeIfPresent(MemberFilter.self, forKey: .filter) ?? .all,
            sortBy: try container.decodeIfPresent(MemberSort.self, forKey: .sortBy) ?? .firstCreated,
            roles: try container.decodeIfPresent([String].self, forKey: .roles) ?? [],
            pageSize: try container.decodeIfPresent(Int.self, forKey: .pageSize) ?? 20,
            userIds: try container.decodeIfPresent([String].self, forKey: .userIds))
    }
}
