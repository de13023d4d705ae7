import ChatAPI

/// Every channel ordered by each indexed sort key (an ``OrderedIndex`` per key), kept current
/// as channels change, so that a query sorted by one of these keys walks the channels from its
/// cursor in order and stops when its page is full instead of scanning every channel
/// (``ServerState/walkedPage(_:after:by:among:budget:)``).
///
/// Indexed keys (``indexedKeys``): `default`, `lastMessageAt`, `createdAt`, `updatedAt`,
/// `lastActivity`, `memberCount`, `displayName` and `channelId`, either direction. A sort whose
/// first criterion is one of them walks its index: with one criterion in the index's own order
/// (the `channelId` tie-break is the index's), with more run by run of equal first values, each
/// run put in the full order by the walker. Not indexed: the viewer's `unreadCount` and
/// `hasUnread` (different for every viewer) and metadata paths (any path may be sorted by);
/// queries sorted first by those scan.
///
/// - Complexity: per channel change O(k × (log n + c + n / c)) for the k keys whose value
///   changed (a new message changes three: `default`, `lastMessageAt`, `lastActivity`) and
///   chunk size c; memory O(n) per key.
struct ChannelSortIndexes: Sendable {
    /// The keys with an index, in the order of ``indexes``.
    static let indexedKeys: [ChannelSortingKey] = [
        .default, .lastMessageAt, .createdAt, .updatedAt, .lastActivity, .memberCount, .displayName, .channelId,
    ]

    /// One index per key of ``indexedKeys``, of each channel's sort value under that key.
    private var indexes = Array(repeating: OrderedIndex<SortValue>(), count: Self.indexedKeys.count)

    init() {}

    /// The indexes of `channels`, each built at once (a restarted server's).
    ///
    /// - Complexity: O(k × n log n) for k indexed keys.
    init(_ channels: [Channel]) {
        indexes = Self.indexedKeys.map { key in
            OrderedIndex(channels.map { OrderedIndex.Entry(key: key.sortValue(of: $0), id: $0.channelId) })
        }
    }

    /// The index of `key`, if it has one.
    ///
    /// - Complexity: O(number of indexed keys).
    func index(of key: ChannelSortingKey) -> OrderedIndex<SortValue>? {
        Self.indexedKeys.firstIndex(of: key).map { indexes[$0] }
    }

    /// Whether a query sorted by `sort` can walk an index: its first criterion is on an indexed
    /// key.
    ///
    /// - Complexity: O(number of indexed keys).
    func canWalk(_ sort: [Sorting]) -> Bool {
        sort.first.map { Self.indexedKeys.contains($0.key) } ?? false
    }

    /// Adds a new channel to every index.
    ///
    /// - Complexity: O(number of indexed keys × (log n + c + n / c)).
    mutating func insert(_ channel: Channel) {
        for (number, key) in Self.indexedKeys.enumerated() {
            indexes[number].insert(key: key.sortValue(of: channel), id: channel.channelId)
        }
    }

    /// Moves a changed channel in the indexes whose key it changed.
    ///
    /// - Complexity: O(number of indexed keys) to compare, plus O(log n + c + n / c) per key
    ///   whose value changed.
    mutating func update(from old: Channel, to new: Channel) {
        for (number, key) in Self.indexedKeys.enumerated() {
            // Folding a display name is the one costly sort value: skip it when unchanged.
            if key == .displayName, old.displayName == new.displayName { continue }
            if key == .channelId { continue }  // never changes
            indexes[number].move(id: new.channelId, from: key.sortValue(of: old), to: key.sortValue(of: new))
        }
    }

    /// Visits every channel (its first sort value and id) in the order of `sort`'s first
    /// criterion (`sort` must satisfy ``canWalk(_:)``), until `body` returns `false`. With one
    /// criterion this is the order of `sort`, starting after `cursor` (a cursor of that order).
    /// With more, channels of equal first value come in id order, and the walk starts at the
    /// first channel whose first value is the cursor's: the walker orders each run and drops
    /// what is not after the cursor.
    ///
    /// - Complexity: O(log n) to start, then O(1) per channel visited (descending, plus
    ///   O(log n) per run of equal values longer than a few channels).
    func forEach(
        sortedBy sort: [Sorting], after cursor: PageCursor?, _ body: (_ value: SortValue, _ id: String) -> Bool
    ) {
        guard canWalk(sort), let index = index(of: sort[0].key) else {
            preconditionFailure("no index for the sort \(sort)")
        }
        // Ids are never empty, so starting after the id "" includes the value's whole run.
        let startId = sort.count == 1 ? cursor?.key.id ?? "" : ""
        let start = cursor.flatMap { cursor in cursor.key.values.first.map { (key: $0, id: startId) } }
        index.forEach(keysAscending: sort[0].isAscending, after: start) { body($0.key, $0.id) }
    }
}
