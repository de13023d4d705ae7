import ChatAPI

/// The shared implementation of the six single-type channel query builders
/// (`StandardChannelQueryBuilder`, `PrivateChannelQueryBuilder`, `BroadcastChannelQueryBuilder`,
/// `ConversationChannelQueryBuilder`, `LiveChannelQueryBuilder`, `CommunityChannelQueryBuilder`):
/// each is a ``ByTypesChannelQueryBuilder`` with one channel type fixed, which holds every
/// parameter and builds the query.
///
/// A conforming builder names its type (``channelType``) and stores the by-types builder that
/// ``byTypes(membership:includingTags:excludingTags:includeDeleted:sortBy:pageSize:)`` makes from
/// its initializer's arguments; its `query` is this protocol's. Only the public initializers
/// differ between the builders (their labels, and whether there is a membership condition), as
/// the Amity seed pins them.
protocol SingleTypeChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable {
    /// The one channel type the builder lists.
    static var channelType: ChannelType { get }

    /// The equivalent by-types builder, which holds every parameter and builds the query.
    var byTypes: ByTypesChannelQueryBuilder { get }
}

extension SingleTypeChannelQueryBuilder {
    /// The by-types query for ``channelType``; see `ByTypesChannelQueryBuilder.query`.
    public var query: ChannelListQuery { byTypes.query }

    /// The by-types builder for ``channelType`` with these parameters, which every public
    /// initializer stores; `membership` is `.all` for the builders without a membership
    /// condition.
    static func byTypes(
        membership: ChannelQueryFilter = .all, includingTags: [String]?, excludingTags: [String]?,
        includeDeleted: Bool, sortBy: [Sorting], pageSize: Int
    ) -> ByTypesChannelQueryBuilder {
        ByTypesChannelQueryBuilder(
            types: [channelType], channelQueryFilter: membership, includingTags: includingTags,
            excludingTags: excludingTags, includeDeleted: includeDeleted, sortBy: sortBy, pageSize: pageSize)
    }
}
