import ChatAPI

/// The channels of some types, with a membership condition, tag constraints and, optionally,
/// deleted channels; the most general Amity-style channel query builder, which the six
/// single-type builders are built on.
///
/// ```swift
/// let builder = ByTypesChannelQueryBuilder(types: [.standard, .private],
///     channelQueryFilter: .userIsMember, includingTags: ["a"], excludingTags: ["b"])
/// let list = repository.getChannels().byTypes(with: builder).query()
/// ```
public struct ByTypesChannelQueryBuilder: ChannelQueryBuilder, Sendable, Hashable {
    /// The channel types to list. An empty set lists no channel (see `query`).
    public var types: Set<ChannelType>
    /// The viewer's membership condition: every visible channel, only those the viewer is a
    /// member of, or only those they are not a member of.
    public var channelQueryFilter: ChannelQueryFilter
    /// Channels with at least one of these tags; `nil` or empty for no constraint.
    public var includingTags: [String]?
    /// Channels with none of these tags; `nil` or empty for no constraint.
    public var excludingTags: [String]?
    /// Whether deleted channels are listed too (`false`: they are left out).
    public var includeDeleted: Bool
    /// The order of the list, first criterion deciding most; ties are broken by `channelId`.
    public var sortBy: [Sorting]
    /// The number of channels per page, 1…`ChannelListQuery.maximumPageSize`.
    public var pageSize: Int

    /// A query for the channels of `types`; every other condition defaults to "no constraint"
    /// except deleted channels, which are left out unless `includeDeleted` is `true`.
    public init(
        types: Set<ChannelType>, channelQueryFilter: ChannelQueryFilter = .all,
        includingTags: [String]? = nil, excludingTags: [String]? = nil,
        includeDeleted: Bool = false, sortBy: [Sorting] = [.default], pageSize: Int = 20
    ) {
        self.types = types
        self.channelQueryFilter = channelQueryFilter
        self.includingTags = includingTags
        self.excludingTags = excludingTags
        self.includeDeleted = includeDeleted
        self.sortBy = sortBy
        self.pageSize = pageSize
    }

    /// The query: `sortBy`, `pageSize`, and the `.and` of, in this order,
    /// 1. `.in(.type, values: types)`, the types in `ChannelType.allCases` order;
    /// 2. `channelQueryFilter.filter`, unless it is `.all`;
    /// 3. `.in(.tags, values: includingTags)` (any of them), unless `nil` or empty;
    /// 4. `.notIn(.tags, values: excludingTags)` (none of them), unless `nil` or empty;
    /// 5. `.equal(.isDeleted, to: false)`, unless `includeDeleted`.
    ///
    /// Tags are listed sorted and once each, so builders that differ only in the order or
    /// repetition of tags (or in the order a set was built) produce equal queries.
    ///
    /// An empty `types` set gives `.in(.type, values: [])`: a valid query that matches no
    /// channel, so its live list is empty rather than failing. (It is not "every type": to list
    /// every type, pass `Set(ChannelType.allCases)`.)
    ///
    /// - Complexity: O(t log t) for t tags.
    public var query: ChannelListQuery {
        var conditions: [Filter] = [.in(.type, values: ChannelType.allCases.filter(types.contains))]
        if channelQueryFilter != .all {
            conditions.append(channelQueryFilter.filter)
        }
        if let tags = Self.canonical(includingTags) {
            conditions.append(.in(.tags, values: tags))
        }
        if let tags = Self.canonical(excludingTags) {
            conditions.append(.notIn(.tags, values: tags))
        }
        if !includeDeleted {
            conditions.append(.equal(.isDeleted, to: false))
        }
        return ChannelListQuery(filter: .and(conditions), sort: sortBy, pageSize: pageSize)
    }

    /// The tags sorted and de-duplicated, or `nil` when there is no constraint.
    private static func canonical(_ tags: [String]?) -> [String]? {
        guard let tags, !tags.isEmpty else { return nil }
        return Set(tags).sorted()
    }
}
