/// A channel list: which channels (`filter`), in which order (`sort`), how many per page.
///
/// Equal queries (`Hashable`, sort included) denote the same list, so a client can share one
/// live list per query.
///
/// Construction never fails; `validate()` checks the filter, the sort keys and the page size and
/// throws `ChatError.invalidArgument` naming the bad part. The server validates every query
/// before answering it, and the client before creating a live list, so an invalid query fails
/// at once and is never half-applied.
public struct ChannelListQuery: Sendable, Hashable, Codable, PageOrdering {
    /// The largest page size a query may ask for.
    public static var maximumPageSize: Int { PageSize.maximum }

    /// The channels of the list.
    public var filter: Filter
    /// The sort criteria, first deciding most; always completed by `channelId` ascending. Empty
    /// means `channelId` ascending alone.
    public var sort: [Sorting]
    /// The number of channels per page, 1…`maximumPageSize`.
    public var pageSize: Int

    /// A query; by default every visible channel, most recent activity first, 20 per page.
    public init(filter: Filter = .all, sort: [Sorting] = [.default], pageSize: Int = 20) {
        self.filter = filter
        self.sort = sort
        self.pageSize = pageSize
    }

    /// Throws `ChatError.invalidArgument` if the filter is invalid (see `Filter.validate()`: it
    /// also refuses filters nested deeper than `Filter.maximumDepth`, without recursing into
    /// them), a metadata sort path is empty or malformed, or `pageSize` is out of range.
    public func validate() throws {
        try filter.validate()
        for sorting in sort {
            if case .metadata(let path) = sorting.key {
                try MetadataPath.validate(path, field: "sort")
            }
        }
        try PageSize.validate(pageSize)
    }

    /// Identifies the query's sort order: equal for queries whose pages can share a cursor.
    public var orderingFingerprint: String { "channels[\(sort.fingerprint)]" }

    /// The key a channel sorts by in this query (its keyset cursor).
    public func sortKey(for channel: Channel) -> SortKey {
        sort.sortKey(for: channel)
    }
}

extension ChannelListQuery {
    /// Decodes a query; each field may be left out and takes the initializer's default (every
    /// visible channel, `default` sort, 20 per page).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            filter: try container.decodeIfPresent(Filter.self, forKey: .filter) ?? .all,
            sort: try container.decodeIfPresent([Sorting].self, forKey: .sort) ?? [.default],
            pageSize: try container.decodeIfPresent(Int.self, forKey: .pageSize) ?? 20)
    }
}
