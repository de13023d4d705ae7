import ChatAPI
import LiveCore

/// What `ChannelRepository.getChannels()` returns: pick a query builder, then call `query()`.
public struct ChannelQueries: Sendable {
    let client: ChatClient

    /// A query for the channels of the builder's types (Amity's `byTypes`); `query()` makes it and loads its first page.
    public func byTypes(with builder: ByTypesChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    /// A query for standard channels matching the builder; `query()` makes it and loads its first page.
    public func standardType(with builder: StandardChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    /// A query for private channels matching the builder; `query()` makes it and loads its first page.
    public func privateType(with builder: PrivateChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    /// A query for broadcast channels matching the builder; `query()` makes it and loads its first page.
    public func broadcast(with builder: BroadcastChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    /// A query for the user's conversations matching the builder; `query()` makes it and loads its first page.
    public func conversation(with builder: ConversationChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    /// A query for live channels matching the builder; `query()` makes it and loads its first page.
    public func liveType(with builder: LiveChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    /// A query for community channels matching the builder (e.g. `.userIsMember`); `query()` makes it and loads its first page.
    public func communityType(with builder: CommunityChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }

    private func prepare(_ builder: some ChannelQueryBuilder) -> PreparedChannelQuery {
        PreparedChannelQuery(client: client, listQuery: builder.query)
    }
}
