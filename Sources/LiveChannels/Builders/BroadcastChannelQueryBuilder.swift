import ChatAPI

/// Broadcast channels (created from the console; only admins send, everyone else reads);
/// `ByTypesChannelQueryBuilder` with `types: [.broadcast]`.
public struct BroadcastChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable, SingleTypeChannelQueryBuilder {
    static let channelType = ChannelType.broadcast

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    public let byTypes: ByTypesChannelQueryBuilder

    /// A query for `.broadcast` channels with the membership condition `channelQueryFilter`; tags
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
