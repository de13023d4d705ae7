import ChatAPI
import LiveCore

/// What `ChannelRepository.getChannels()` returns: pick a query builder, then call `query()`.
public struct ChannelQueries: Sendable {
    let client: ChatClient

    public func byTypes(with builder: ByTypesChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    public func standardType(with builder: StandardChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    public func privateType(with builder: PrivateChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    public func broadcast(with builder: BroadcastChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    public func conversation(with builder: ConversationChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    public func liveType(with builder: LiveChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }
    public func communityType(with builder: CommunityChannelQueryBuilder) -> PreparedChannelQuery { prepare(builder) }

    private func prepare(_ builder: some ChannelQueryBuilder) -> PreparedChannelQuery {
        PreparedChannelQuery(client: client, listQuery: builder.query)
    }
}
