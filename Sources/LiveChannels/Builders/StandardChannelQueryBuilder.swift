import ChatAPI

/// Standard channels (a legacy type, created from the console); `ByTypesChannelQueryBuilder` with
/// `types: [.standard]`.
public struct StandardChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable, SingleTypeChannelQueryBuilder {
    static let channelType = ChannelType.standard

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    public let byTypes: ByTypesChannelQueryBuilder

    /// A query for `.standard` channels with the membership condition `channelQueryFilter`; tags
    /// included (any of) and excluded (none of; `nil` or empty: no constraint), deleted channels
    /// left out unless `includeDeleted`.
    public init(
        channelQueryFilter: ChannelQueryFilter = .all, includingTags: [String]? = nil,
        excludingTags: [String]? = nil, includeDeleted: Bool = false,
        sortBy: [Sorting] = [.default], pageSize: Int = 20
    ) {
        byTypes = Self.byTypes(
            membership: channelQueryFilter, includingTags: includingTags, excludingTags: excludingTags,
            includeDeleted: includeDeleted, sortBy: sortBy, pageSize: pageSize)
    }
}
