import ChatAPI

/// Private channels (a legacy type, created from the console); `ByTypesChannelQueryBuilder` with
/// `types: [.private]`.
public struct PrivateChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable, SingleTypeChannelQueryBuilder {
    static let channelType = ChannelType.`private`

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    public let byTypes: ByTypesChannelQueryBuilder

    /// A query for `.private` channels: tags included (any of) and excluded (none of; `nil` or
    /// empty: no constraint), deleted channels left out unless `includeDeleted`.
    public init(
        includingTags: [String]? = nil, excludingTags: [String]? = nil,
        includeDeleted: Bool = false, sortBy: [Sorting] = [.default], pageSize: Int = 20
    ) {
        byTypes = Self.byTypes(
            includingTags: includingTags, excludingTags: excludingTags,
            includeDeleted: includeDeleted, sortBy: sortBy, pageSize: pageSize)
    }
}
