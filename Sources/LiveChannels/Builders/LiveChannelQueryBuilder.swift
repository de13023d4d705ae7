import ChatAPI

/// Live channels. The server shows a user only the live channels they are a member of (admins see
/// all), so there is no membership condition; `ByTypesChannelQueryBuilder` with `types: [.live]`.
public struct LiveChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable, SingleTypeChannelQueryBuilder {
    static let channelType = ChannelType.live

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    public let byTypes: ByTypesChannelQueryBuilder

    /// A query for `.live` channels: tags included (any of) and excluded (none of; `nil` or empty:
    /// no constraint), deleted channels left out unless `includeDeleted`.
    public init(
        includingTags: [String]? = nil, excludingTags: [String]? = nil,
        includeDeleted: Bool = false, sortBy: [Sorting] = [.default], pageSize: Int = 20
    ) {
        byTypes = Self.byTypes(
            includingTags: includingTags, excludingTags: excludingTags,
            includeDeleted: includeDeleted, sortBy: sortBy, pageSize: pageSize)
    }
}
