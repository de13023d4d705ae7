import ChatAPI

/// Conversations. The server shows a user only the conversations they are a member of, so there is
/// no membership condition; `ByTypesChannelQueryBuilder` with `types: [.conversation]`.
public struct ConversationChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable, SingleTypeChannelQueryBuilder {
    static let channelType = ChannelType.conversation

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    public let byTypes: ByTypesChannelQueryBuilder

    /// A query for `.conversation` channels: tags included (any of) and excluded (none of; `nil` or
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
