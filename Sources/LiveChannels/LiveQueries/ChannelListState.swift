import ChatAPI

/// The state machine of one live channel list: the elements of a query's window, kept sorted,
/// maintained one channel at a time. A pure value, mutated by the sync engine; each mutation
/// returns the exact ``CollectionChange`` it made, so the list is published without a diff.
///
/// The window is what has been loaded: every channel that matches the filter and sorts at or
/// before the last channel of the last loaded page (its key as it was then), or everything once
/// the server said there is nothing after it. Bounding by a sort key rather than a count is what
/// makes keyset pagination gap- and duplicate-free while the list moves.
struct ChannelListState: Sendable {
    let query: ChannelListQuery
    let viewerId: String
    /// The listed channels, their keys and the window bound.
    private var window = SortedWindow<Channel>()
    /// The last channel of the last page the server returned, as it was then: the next page's
    /// cursor. `nil` until the first page arrives.
    private(set) var windowEnd: Channel?
    /// Channels the server returned for this query. Conditions on other users' membership
    /// cannot be evaluated on the client (it knows only its own); for those it trusts the server.
    private var confirmedIds: Set<String> = []

    init(query: ChannelListQuery, viewerId: String) {
        self.query = query
        self.viewerId = viewerId
    }

    /// The elements, in query order.
    var items: [Channel] { window.items }

    /// Whether more channels can be loaded after the window.
    var hasNext: Bool { !window.isComplete }

    /// The cursor that asks the server for the page after the window.
    var nextCursor: PageCursor? { windowEnd.map(query.cursor(after:)) }

    /// Whether `channel` belongs to the query (filter only, not the window).
    func matches(_ channel: Channel) -> Bool {
        query.filter.matches(channel) { userId in
            userId == viewerId
                ? channel.currentUserMembership == .member : confirmedIds.contains(channel.channelId)
        }
    }

    // MARK: One channel at a time

    /// Applies a changed (or new) channel: it enters, leaves, moves or is modified in place.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(log n) to place it, plus O(n) to shift the array.
    mutating func apply(_ channel: Channel) -> CollectionChange? {
        window.apply(channel, key: query.sortKey(for: channel), matches: matches(channel))
    }

    // MARK: Pages

    /// Records a page the server returned: its channels are confirmed members of the query, and
    /// the window now ends at its last channel (or is unbounded when the server has no more).
    /// The first page replaces a provisional (prefilled) window; later pages only extend it.
    /// The caller then rebuilds the items with ``rebuild(from:)``.
    mutating func extendWindow(with page: Page<Channel>) {
        confirmedIds.formUnion(page.items.map(\.channelId))
        let lastKey = page.items.last.map(query.sortKey(for:))
        if windowEnd == nil {
            window.replaceWindow(with: lastKey, hasNext: page.hasNext)
        } else {
            window.extendWindow(to: lastKey, hasNext: page.hasNext)
        }
        if let last = page.items.last, windowEnd == nil || lastKey == window.windowEndKey {
            windowEnd = last
        }
    }

    /// Shows cached channels before the server has answered: the first page's worth of them.
    /// The request for the first page still starts from the top (the cache may lack channels
    /// that sort before these); its answer replaces this provisional window.
    /// - Complexity: O(c · log p) for c cached channels and a page of p.
    mutating func prefill(from cached: some Sequence<Channel>) {
        var best: [(key: SortKey, element: Channel)] = []
        for channel in cached where matches(channel) {
            let key = query.sortKey(for: channel)
            if best.count == query.pageSize, let last = best.last, !(key < last.key) { continue }
            let index = best.partitioningIndex { !($0.key < key) }
            best.insert((key, channel), at: index)
            if best.count > query.pageSize { best.removeLast() }
        }
        window.showProvisionally(best)
    }

    /// Forgets what was loaded (for a resync): the items stay shown until the next first page
    /// replaces them.
    mutating func resetWindow() {
        windowEnd = nil
    }

    /// Recomputes the items from every cached channel (after the window changed).
    /// - Complexity: O(c log c) for c cached channels.
    mutating func rebuild(from cached: some Sequence<Channel>) {
        window.rebuild(from: cached.compactMap { matches($0) ? (query.sortKey(for: $0), $0) : nil })
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, for an array partitioned so that
    /// every element failing it comes first (binary search).
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
