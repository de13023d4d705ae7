import ChatAPI
import LiveCore

/// The state machine of one live list, whatever it lists: the elements of a ``LiveQuerySpec``'s
/// loaded window, kept sorted, changed one entity at a time by events and a page at a time by
/// responses, each mutation returning the exact ``CollectionChange`` it made. A pure value; the
/// ``LiveQuery`` that owns it holds the lock and publishes.
///
/// ## Pages are the server's word — as of their revision
/// A page answers "what lies between the old bound and the new one" at the server's `revision`
/// when it was read. So, for every element that sorts inside the newly covered range:
/// - a value at or below that revision is listed exactly when the page lists it (the client's
///   own matching may be stale, or unable to judge other users' memberships);
/// - a value above it changed after the page was read, and is judged by the client's matching,
///   like any event.
/// Elements outside the covered range keep the client's judgement. This is what lets a page
/// arrive after newer events without undoing them, and what drops stale elements (after a
/// resync) without clearing the cache.
///
/// In debug builds every mutating method ends with the checks of ``checkInvariants()`` (sampled:
/// see `checkAfterMutation()`).
struct LiveQueryState<Spec: LiveQuerySpec>: Sendable {
    typealias Entity = Spec.Entity

    /// Where a reload (after a resync) must reach before it is done.
    struct ReloadTarget: Sendable {
        var bound: SortKey?
        var isComplete: Bool
    }

    let spec: Spec
    var context: QueryContext
    /// Elements per page.
    let pageSize: Int
    var window: SortedWindow<Entity>
    /// The last element of the last loaded page (in the direction of growth), as it was then:
    /// the next page's cursor.
    var boundary: Entity?
    /// Whether a page from the server has been applied since the list (re)started.
    var hasLoadedFirstPage = false
    /// Elements the server listed for this query (for conditions the client cannot evaluate).
    var confirmed: Set<String> = []
    /// The oldest revision among the pages that built the window since its first page (`nil`
    /// before one, and after a reload that discards): every value of a version up to it that
    /// falls inside the window was seen by a page, so one the pages left out does not belong,
    /// whatever the client's own matching says (a stale cached record — of a member who left
    /// while the client was away — refreshed with a newer profile but the same version).
    var coveredRevision: Int?
    /// Whether a page request is under way (one at a time).
    var isLoading = false
    /// How the last page load ended.
    var loadOutcome = LoadingStatus.notLoading

    /// The loading status to show: `.loading` while a page is under way, else how the last load
    /// ended. Publications read it when they are delivered, so a late one never shows an older
    /// status than the state has.
    var loadingStatus: LoadingStatus { isLoading ? .loading : loadOutcome }
    /// Whether the page under way is a first page.
    var isLoadingFirstPage = false
    /// A reload asked for while a page was under way: it starts when that page ends.
    var reloadPending = false
    var reloadTarget: ReloadTarget?
    /// Set when the first page failed with `notFound` (see ``failPageLoad(notFound:)``).
    var awaitsScope = false
    #if DEBUG
        /// Which mutations end with a check of every element.
        private var sampling = InvariantSampling()
    #endif

    init(spec: Spec, context: QueryContext, pageSize: Int) {
        self.spec = spec
        self.context = context
        self.pageSize = pageSize
        window = SortedWindow(growth: spec.growth)
    }

    typealias Entry = SortedWindow<Entity>.Entry

    /// The listed elements with their keys, ascending by key (an O(1) copy).
    var entries: PersistentArray<Entry> { window.entries }

    /// The listed elements, ascending by key.
    /// - Complexity: O(n).
    var items: [Entity] {
        var items: [Entity] = []
        items.reserveCapacity(window.entries.count)
        window.entries.forEach { items.append($0.element) }
        return items
    }

    /// The first (forward lists) or last (backward lists) `count` listed elements: the first
    /// page as a user sees it.
    /// - Complexity: O(count · log n).
    func leadingItems(_ count: Int) -> [Entity] {
        let entries = window.entries
        let range =
            spec.growth == .forward ? 0..<min(count, entries.count) : max(0, entries.count - count)..<entries.count
        return range.map { entries[$0].element }
    }

    /// Whether more elements can be loaded beyond the window.
    var hasMore: Bool { !window.isComplete }

    /// Whether `entity` is of the list's channel, for lists of one channel's entities. Ids are
    /// unique only within a channel there (a member's id is its user id), so an entity of
    /// another channel must not even be looked up.
    func isInScope(_ entity: Entity) -> Bool {
        spec.channelScope.map { $0 == entity.storedScope } ?? true
    }

    /// Whether `entity` belongs to the list (not considering the window).
    func matches(_ entity: Entity) -> Bool {
        spec.matches(entity, in: context) { confirmed.contains(entity.id) }
    }

    // MARK: Events

    /// Applies a changed (or new) entity: it enters, leaves, moves or is modified in place.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(log n).
    mutating func apply(_ entity: Entity) -> CollectionChange? {
        guard isInScope(entity) else { return nil }
        let matches = matches(entity)
        // Most changes concern elements a list neither shows nor wants: no key for those.
        let isListed = window.lists(entity.id)
        guard matches || isListed else { return nil }
        let key = spec.sortKey(for: entity)
        // A value no newer than the pages, inside their range, that they did not list: the
        // server's answer stands (only a newer version can bring it in).
        if !isListed, !entity.isLocal, let covered = coveredRevision, entity.version <= covered, window.contains(key) {
            return nil
        }
        defer { checkAfterMutation() }
        if !hasLoadedFirstPage, matches, !window.contains(key),
            entity.isLocal || (isListed && window.listed(entity.id)?.isLocal == true)
        {
            // Before the server's first page the window is provisional (the cache's share, or
            // nothing): it grows to hold the outbox's messages, and what they become once stored,
            // until the first page replaces it.
            window.setBound(key, isComplete: false)
        }
        return window.apply(entity, key: key, matches: matches)
    }

    /// Drops an entity that left the cache for good (a discarded local message), if listed.
    /// - Returns: the change made, or `nil` when it was not listed.
    /// - Complexity: O(log n).
    mutating func remove(_ entity: Entity) -> CollectionChange? {
        guard isInScope(entity), window.lists(entity.id) else { return nil }
        defer { checkAfterMutation() }
        return window.apply(entity, key: spec.sortKey(for: entity), matches: false)
    }

    // MARK: Before the first page

    /// Shows cached entities before the server has answered: the first page's worth of those
    /// that match, as a provisional window that the first page replaces.
    /// - Parameter confirmed: ids the server listed for this query before (the stored first
    ///   page), taken as matching where the client cannot judge.
    /// - Complexity: O(c · log p) for c cached entities and a page of p.
    mutating func prefill(from cached: some Sequence<Entity>, confirmed: Set<String> = []) {
        defer { checkAfterMutation() }
        self.confirmed = confirmed
        let forward = spec.growth == .forward
        var best: [(key: SortKey, element: Entity)] = []
        for entity in cached where isInScope(entity) && matches(entity) {
            let key = spec.sortKey(for: entity)
            if best.count == pageSize, let worst = forward ? best.last : best.first,
                forward ? !(key < worst.key) : !(worst.key < key)
            {
                continue
            }
            best.insert((key, entity), at: best.partitioningIndex { !($0.key < key) })
            if best.count > pageSize {
                if forward { best.removeLast() } else { best.removeFirst() }
            }
        }
        guard let edge = forward ? best.last : best.first else { return }
        window.setBound(edge.key, isComplete: false)
        window.replaceItems(with: best)
    }

    // MARK: Invariants

    /// Traps unless the state is consistent: the window's own invariants hold
    /// (``SortedWindow/checkInvariants()``), every listed element falls inside the loaded window
    /// and, in a list of one channel's entities, is of that channel, and a next-page cursor exists
    /// only once a page was applied.
    ///
    /// Debug builds only: a no-op in release.
    /// - Complexity: O(n).
    func checkInvariants() {
        #if DEBUG
            window.checkInvariants()
            checkBounds()
            checkScope()
        #endif
    }

    /// Ends every mutating method in debug builds: the bounds and the cursor are checked after
    /// every mutation (O(log n)); each element's channel after the mutations `sampling` picks
    /// (see ``InvariantSampling``: every mutation while the list is small, one in
    /// n / ``InvariantSampling/smallCount`` above), amortized O(1) per mutation. The window
    /// checks itself after its own mutations. A no-op in release.
    mutating func checkAfterMutation() {
        #if DEBUG
            checkBounds()
            if sampling.isDue(count: window.entries.count) { checkScope() }
        #endif
    }

    #if DEBUG
        /// The cursor exists only once a page was applied; the listed elements fall inside the
        /// window. O(log n).
        private func checkBounds() {
            precondition(boundary == nil || hasLoadedFirstPage, "a next-page cursor before any page was applied")
            let entries = window.entries
            // Keys ascend, so the element furthest in the direction of growth is the one to check.
            if let outermost = spec.growth == .forward ? entries.last : entries.first {
                precondition(window.contains(outermost.key), "an element beyond the loaded window: \(outermost.key)")
            }
        }

        /// Every listed element is of the list's channel, in a list of one channel's entities. O(n).
        private func checkScope() {
            guard spec.channelScope != nil else { return }
            window.entries.forEach { entry in
                precondition(isInScope(entry.element), "an element of another channel: \(entry.element.cacheKey)")
            }
        }
    #endif
}
