import ChatAPI

/// Community channels (public: every user can discover them); `ByTypesChannelQueryBuilder` with
/// `types: [.community]`.
public struct CommunityChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable, SingleTypeChannelQueryBuilder {
    static let channelType = ChannelType.community

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    public let byTypes: ByTypesChannelQueryBuilder

    /// A query for `.community` channels with the membership condition `filter`; tags included (any
    /// of) and excluded (none of; `nil` or empty: no constraint), deleted channels left out unless
    /// `includeDeleted`.
    public init(
        filter: ChannelQueryFilter = .all, includingTags: [String]? = nil,
        excludingTags: [String]? = nil, includeDeleted: Bool = false,
        sortBy: [Sorting] = [.default], pageSize: Int = 20
    ) {
        byTypes = Self.byTypes(
            membership: filter, includingTags: includingTags, excludingTags: excludingTags,
            includeDeleted: includeDeleted, sortBy: sortBy, pageSize: pageSize)
    }
}
