import ChatAPI

/// An Amity-style description of a channel list, the sugar `ChannelRepository.getChannels()`
/// accepts over the query language: a `ChannelListQuery` of channel types, a membership
/// condition, tags and deleted channels.
///
/// The seven builders — `ByTypesChannelQueryBuilder`, `StandardChannelQueryBuilder`,
/// `PrivateChannelQueryBuilder`, `BroadcastChannelQueryBuilder`,
/// `ConversationChannelQueryBuilder`, `LiveChannelQueryBuilder` and
/// `CommunityChannelQueryBuilder` — all build their query as a by-types query; see
/// `ByTypesChannelQueryBuilder.query` for the filter they produce.
///
/// Which channels a user can see at all (conversations and live channels only when a member) is
/// decided by the server, not by the query.
public protocol ChannelQueryBuilder {
    /// The query the builder describes. Building it never fails and is deterministic: equal
    /// builders produce equal queries, so live lists over them can be shared. Whether the query
    /// is acceptable is decided by `ChannelListQuery.validate()` (a page size out of range, for
    /// one), which the repository calls before creating a live list.
    var query: ChannelListQuery { get }
}
