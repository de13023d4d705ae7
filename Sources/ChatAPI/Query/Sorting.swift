/// One sort criterion of a channel list: a key and a direction. A list is sorted by an array of
/// them, the first deciding most; ties left by all are broken by `channelId` ascending, so the
/// order is total and pagination is stable.
public struct Sorting: Sendable, Hashable, Codable {
    /// The field sorted by.
    public var key: ChannelSortingKey
    /// `true` for smallest first; missing values are smallest, so they come last when descending.
    public var isAscending: Bool

    /// A criterion; descending unless `isAscending` is `true`.
    public init(key: ChannelSortingKey, isAscending: Bool = false) {
        self.key = key
        self.isAscending = isAscending
    }

    /// Most recent activity first: `lastMessageAt`, else `createdAt`, descending.
    public static let `default` = Sorting(key: .default, isAscending: false)
}

extension Array where Element == Sorting {
    /// The sort key of `channel` under these criteria (final tie-break: `channelId`).
    ///
    /// - Complexity: O(count), plus text folding for `displayName` and metadata strings.
    public func sortKey(for channel: Channel) -> SortKey {
        SortKey(
            values: map { $0.key.sortValue(of: channel) }, ascending: map(\.isAscending),
            id: channel.channelId)
    }

    /// The identity of this order in page cursors.
    var fingerprint: String {
        map { "\($0.key.name):\($0.isAscending ? "asc" : "desc")" }.joined(separator: ",")
    }
}
