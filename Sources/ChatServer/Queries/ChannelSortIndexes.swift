import ChatAPI

/// Every channel ordered by each indexed sort key (an ``OrderedIndex`` per key), kept current
/// as channels change, so that a query sorted by one of these keys walks the channels from its
/// cursor in order and stops when its page is full instead of scanning every channel
/// (``ServerState/walkedPage(_:after:by:among:budget:)``).
///
/// Indexed keys (``indexedKeys``): `default`, `lastMessageAt`, `createdAt`, `updatedAt`,
/// `lastActivity`, `memberCount` and `displayName`, either direction, as the only criterion of
/// a sort (the `channelId` tie-break is the index's own). Not indexed: the viewer's
/// `unreadCount` and `hasUnread` (different for every viewer), metadata paths (any path may be
/// sorted by), `channelId`, and sorts of several criteria; those queries scan.
///
/// - Complexity: per channel change O(k × (log n + c + n / c)) for the k keys whose value
///   changed (a new message changes three: `default`, `lastMessageAt`, `lastActivity`) and
///   chunk size c; memory O(n) per key.
struct ChannelSortIndexes: Sendable {
    /// The keys with an index, in the order of ``indexes``.
    static let indexedKeys: [ChannelSortingKey] = [
        .default, .lastMessageAt, .createdAt, .updatedAt, .lastActivity, .memberCount, .displayName,
    ]

    /// One index per key of ``indexedKeys``, of each channel's sort value under that key.
    private var indexes = Array(repeating: OrderedIndex<SortValue>(), count: Self.indexedKeys.count)

    init() {}

    /// The index of `key`, if it has one.
    ///
    /// - Complexity: O(number of indexed keys).
    func index(of key: ChannelSortingKey) -> OrderedIndex<SortValue>? {
        Self.indexedKeys.firstIndex(of: key).map { indexes[$0] }
    }

    /// Whether a query sorted by `sort` can walk an index: one criterion, on an indexed key.
    ///
    /// - Complexity: O(number of indexed keys).
    func canWalk(_ sort: [Sorting]) -> Bool {
        sort.count == 1 && Self.indexedKeys.contains(sort[0].key)
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
            indexes[number].move(id: new.channelId, from: key.sortValue(of: old), to: key.sortValue(of: new))
        }
    }

    /// Visits the ids of every channel in the order of `sort` (which must satisfy
    /// ``canWalk(_:)``), starting after `cursor` (a cursor of that order), until `body` returns
    /// `false`.
    ///
    /// - Complexity: O(log n) to start, then O(1) per channel visited (descending, plus
    ///   O(log n) per run of equal values longer than a few channels).
    func forEach(sortedBy sort: [Sorting], after cursor: PageCursor?, _ body: (String) -> Bool) {
        guard canWalk(sort), let index = index(of: sort[0].key) else {
            preconditionFailure("no index for the sort \(sort)")
        }
        let start = cursor.flatMap { cursor in cursor.key.values.first.map { (key: $0, id: cursor.key.id) } }
        index.forEach(keysAscending: sort[0].isAscending, after: start) { body($0.id) }
    }
}
