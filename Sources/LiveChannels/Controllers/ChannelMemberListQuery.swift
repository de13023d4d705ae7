import ChatAPI

/// Which members of a channel a ``ChatChannelMemberListController`` lists (Stream's
/// `ChannelMemberListQuery`): a filter, an order and a page size.
public struct ChannelMemberListQuery: Sendable, Hashable {
    /// The channel.
    public var channelId: String
    /// `.all` (current members), `.mute` (muted members) or `.ban` (banned users).
    public var filter: MemberFilter
    /// `.firstCreated` (earliest joined first, the default) or `.lastCreated`; ties by user id.
    public var sort: MemberSort
    /// Only members with at least one of these roles; empty means any.
    public var roles: [String]
    /// Members per page, 1…`ChannelListQuery.maximumPageSize`.
    public var pageSize: Int

    /// A query of a channel's members; by default all current members, earliest joined first,
    /// 30 per page.
    public init(
        channelId: String, filter: MemberFilter = .all, sort: MemberSort = .firstCreated, roles: [String] = [],
        pageSize: Int = 30
    ) {
        self.channelId = channelId
        self.filter = filter
        self.sort = sort
        self.roles = roles
        self.pageSize = pageSize
    }

    /// The query of the live-query pipeline.
    var memberListQuery: MemberListQuery {
        MemberListQuery(channelId: channelId, filter: filter, sortBy: sort, roles: roles, pageSize: pageSize)
    }
}
