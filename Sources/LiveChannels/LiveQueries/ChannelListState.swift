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
    /// The elements, in query order.
    private(set) var items: [Channel] = []
    /// `items`' sort keys, for binary search.
    private var keys: [SortKey] = []
    /// The sort key of each listed channel, to find it again after it changed.
    private var keyById: [String: SortKey] = [:]
    /// The last channel of the last page the server returned, as it was then: the next page's
    /// cursor. `nil` until the first page arrives.
    private(set) var windowEnd: Channel?
    /// The sort key bounding the window: `windowEnd`'s, or, before the first page, the end of
    /// what ``prefill(from:)`` shows from the cache.
    private var windowEndKey: SortKey?
    /// Whether the server has nothing after `windowEnd`: the window is then unbounded.
    private(set) var isComplete = false
    /// Channels the server returned for this query. Conditions on other users' membership
    /// cannot be evaluated on the client (it knows only its own); for those it trusts the server.
    private var confirmedIds: Set<String> = []

    init(query: ChannelListQuery, viewerId: String) {
        self.query = query
        self.viewerId = viewerId
    }

    /// Whether more channels can be loaded after the window.
    var hasNext: Bool { !isComplete }

    /// The cursor that asks the server for the page after the window.
    var nextCursor: PageCursor? { windowEnd.map(query.cursor(after:)) }

    /// Whether `channel` belongs to the query (filter only, not the window).
    func matches(_ channel: Channel) -> Bool {
        query.filter.matches(channel) { userId in
            userId == viewerId
                ? channel.currentUserMembership == .member : confirmedIds.contains(channel.channelId)
        }
    }

    private func isInWindow(_ key: SortKey) -> Bool {
        if isComplete { return true }
        guard let windowEndKey else { return false }
        return key <= windowEndKey
    }

    // MARK: One channel at a time

    /// Applies a changed (or new) channel: it enters, leaves, moves or is modified in place.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(log n) to place it, plus O(n) to shift the array.
    mutating func apply(_ channel: Channel) -> CollectionChange? {
        let id = channel.channelId
        let oldIndex = keyById[id].map(index(of:))
        let key = query.sortKey(for: channel)
        let belongs = matches(channel) && isInWindow(key)
        switch (oldIndex, belongs) {
        case (nil, false):
            return nil
        case (let old?, false):
            removeItem(at: old, id: id)
            return CollectionChange(deletions: [old])
        case (nil, true):
            let new = insertItem(channel, key: key)
            return CollectionChange(insertions: [new])
        case (let old?, true):
            if items[old] == channel { return nil }
            removeItem(at: old, id: id)
            let new = insertItem(channel, key: key)
            return old == new
                ? CollectionChange(modifications: [old], modificationsInNew: [new])
                : CollectionChange(moves: [.init(from: old, to: new, isModified: true)])
        }
    }

    /// Removes a channel that is gone from the cache (deleted or no longer visible).
    mutating func remove(channelId: String) -> CollectionChange? {
        guard let key = keyById[channelId] else { return nil }
        let old = index(of: key)
        removeItem(at: old, id: channelId)
        return CollectionChange(deletions: [old])
    }

    // MARK: Pages

    /// Records a page the server returned: its channels are confirmed members of the query, and
    /// the window now ends at its last channel (or is unbounded when the server has no more).
    /// The caller then rebuilds the items with ``rebuild(from:)``.
    mutating func extendWindow(with page: Page<Channel>) {
        confirmedIds.formUnion(page.items.map(\.channelId))
        let isFirstPage = windowEnd == nil
        if let last = page.items.last {
            let key = query.sortKey(for: last)
            // The first page replaces a prefilled window; later pages only extend it.
            if isFirstPage || windowEndKey.map({ $0 < key }) ?? true {
                windowEnd = last
                windowEndKey = key
            }
        } else if isFirstPage {
            windowEndKey = nil
        }
        isComplete = !page.hasNext
    }

    /// Shows cached channels before the server has answered: the first page's worth of them.
    /// The request for the first page still starts from the top (the cache may lack channels
    /// that sort before these); its answer replaces this provisional window.
    /// - Complexity: O(c · log p) for c cached channels and a page of p.
    mutating func prefill(from cached: some Sequence<Channel>) {
        var best: [(SortKey, Channel)] = []
        for channel in cached where matches(channel) {
            let key = query.sortKey(for: channel)
            if best.count == query.pageSize, let last = best.last, !(key < last.0) { continue }
            var low = 0
            var high = best.count
            while low < high {
                let mid = (low + high) / 2
                if best[mid].0 < key { low = mid + 1 } else { high = mid }
            }
            best.insert((key, channel), at: low)
            if best.count > query.pageSize { best.removeLast() }
        }
        guard let last = best.last else { return }
        windowEndKey = last.0
        items = best.map(\.1)
        keys = best.map(\.0)
        keyById = Dictionary(uniqueKeysWithValues: best.map { ($0.1.channelId, $0.0) })
    }

    /// Forgets the window (for a resync): nothing is loaded until the next page arrives.
    mutating func resetWindow() {
        windowEnd = nil
        isComplete = false
    }

    /// Recomputes the items from every cached channel (after the window changed).
    /// - Complexity: O(c log c) for c cached channels.
    mutating func rebuild(from cached: some Sequence<Channel>) {
        let keyed = cached.compactMap { channel -> (SortKey, Channel)? in
            guard matches(channel) else { return nil }
            let key = query.sortKey(for: channel)
            return isInWindow(key) ? (key, channel) : nil
        }.sorted { $0.0 < $1.0 }
        items = keyed.map(\.1)
        keys = keyed.map(\.0)
        keyById = Dictionary(uniqueKeysWithValues: keyed.map { ($0.1.channelId, $0.0) })
    }

    // MARK: Storage

    /// The index of the listed channel whose key is `key`.
    private func index(of key: SortKey) -> Int {
        insertionIndex(for: key)
    }

    /// The first index whose key is not less than `key`.
    private func insertionIndex(for key: SortKey) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private mutating func removeItem(at index: Int, id: String) {
        items.remove(at: index)
        keys.remove(at: index)
        keyById[id] = nil
    }

    private mutating func insertItem(_ channel: Channel, key: SortKey) -> Int {
        let index = insertionIndex(for: key)
        items.insert(channel, at: index)
        keys.insert(key, at: index)
        keyById[channel.channelId] = key
        return index
    }
}
