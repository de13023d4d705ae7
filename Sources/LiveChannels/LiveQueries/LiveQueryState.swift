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
    private struct ReloadTarget: Sendable {
        var bound: SortKey?
        var isComplete: Bool
    }

    let spec: Spec
    var context: QueryContext
    /// Elements per page.
    let pageSize: Int
    private var window: SortedWindow<Entity>
    /// The last element of the last loaded page (in the direction of growth), as it was then:
    /// the next page's cursor.
    private var boundary: Entity?
    /// Whether a page from the server has been applied since the list (re)started.
    private(set) var hasLoadedFirstPage = false
    /// Elements the server listed for this query (for conditions the client cannot evaluate).
    private var confirmed: Set<String> = []
    /// Whether a page request is under way (one at a time).
    private(set) var isLoading = false
    /// How the last page load ended.
    private var loadOutcome = LoadingStatus.notLoading

    /// The loading status to show: `.loading` while a page is under way, else how the last load
    /// ended. Publications read it when they are delivered, so a late one never shows an older
    /// status than the state has.
    var loadingStatus: LoadingStatus { isLoading ? .loading : loadOutcome }
    /// Whether the page under way is a first page.
    private var isLoadingFirstPage = false
    /// A reload asked for while a page was under way: it starts when that page ends.
    private var reloadPending = false
    private var reloadTarget: ReloadTarget?
    /// Set when the first page failed with `notFound` (see ``failPageLoad(notFound:)``).
    private var awaitsScope = false
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
        let range = spec.growth == .forward ? 0..<min(count, entries.count) : max(0, entries.count - count)..<entries.count
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
        guard matches || window.lists(entity.id) else { return nil }
        defer { checkAfterMutation() }
        return window.apply(entity, key: spec.sortKey(for: entity), matches: matches)
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

    // MARK: Pages

    /// Starts a page load if one can start: none is under way, and there is a first page to
    /// load or more beyond the window.
    /// - Parameter limit: the page's size; the list's page size when `nil`.
    /// - Returns: the request to send, or `nil`.
    mutating func beginPageLoad(limit: Int? = nil) -> ChatRequest? {
        defer { checkAfterMutation() }
        guard !isLoading, !hasLoadedFirstPage || hasMore else { return nil }
        isLoading = true
        awaitsScope = false
        isLoadingFirstPage = !hasLoadedFirstPage
        return spec.pageRequest(after: hasLoadedFirstPage ? boundary : nil, limit: limit)
    }

    /// Ends a page load that failed; the window is as it was. A reload asked for meanwhile
    /// starts with the next load.
    /// - Parameter notFound: whether the server had no such scope (a message list of a channel
    ///   that does not exist, yet): the first page is then loaded again as soon as an entity of
    ///   the scope appears (``shouldLoadAgain(after:)``).
    mutating func failPageLoad(notFound: Bool = false) {
        defer { checkAfterMutation() }
        isLoading = false
        loadOutcome = .error
        awaitsScope = notFound && !hasLoadedFirstPage
        if reloadPending { restart() }
    }

    /// Whether `changed` entities show that the scope a first page did not find exists now (a
    /// channel created after its message list was opened, or again after the server's history
    /// started over): the list then loads its first page again by itself.
    /// - Complexity: O(changed) at most; O(1) for a list that waits for nothing.
    func shouldLoadAgain(after changed: [Entity]) -> Bool {
        guard awaitsScope, !isLoading else { return false }
        return changed.contains { isInScope($0) }
    }

    /// Applies a page read at `revision` (see the type's discussion) and ends the page load.
    /// - Parameters:
    ///   - current: the cached value of a cache key (possibly newer than the page's).
    ///   - newer: the cached values with a version above `revision`; called only when the
    ///     cache holds any (`newestCachedVersion > revision`).
    /// - Returns: the change made, or `nil` when the elements did not change.
    /// - Complexity: a later page that is small next to the window: O(p log n) for a page of p
    ///   (elements outside the newly covered range keep their place, so only the page's
    ///   elements are placed). A first page (or a reload's), or a page as large as an eighth of
    ///   the window: O((n + p) log(n + p)) for n listed elements, rebuilding the window.
    mutating func applyPage(
        _ page: QueryPage<Entity>, revision: Int, newestCachedVersion: Int,
        current: (String) -> Entity?, newer: () -> [Entity]
    ) -> CollectionChange? {
        defer { checkAfterMutation() }
        isLoading = false
        loadOutcome = .loaded
        let isFirst = isLoadingFirstPage
        let (oldBound, wasComplete) = (window.bound, window.isComplete)
        let forward = spec.growth == .forward
        if let edge = forward ? page.items.last : page.items.first {
            let key = spec.sortKey(for: edge)
            if isFirst || oldBound.map({ forward ? $0 < key : key < $0 }) ?? true {
                window.setBound(key, isComplete: !page.hasMore)
                boundary = edge
            } else {
                window.setBound(oldBound, isComplete: !page.hasMore)
            }
        } else {
            window.setBound(isFirst ? nil : oldBound, isComplete: !page.hasMore)
        }
        hasLoadedFirstPage = true
        if !isFirst && page.items.count * 8 < window.entries.count {
            return placePage(
                page, revision: revision, newestCachedVersion: newestCachedVersion, current: current, newer: newer,
                oldBound: oldBound, wasComplete: wasComplete)
        }

        // Every element that may be listed now: the listed ones, the page's, and (rarely) cached
        // values newer than the page — each in its newest cached form.
        var candidates: [String: Entity] = [:]
        window.entries.forEach { candidates[$0.element.id] = current($0.element.cacheKey) ?? $0.element }
        var paged: Set<String> = []
        for element in page.items {
            paged.insert(element.id)
            let value = current(element.cacheKey) ?? element
            candidates[element.id] = value
            if value.version <= revision { confirmed.insert(element.id) }
        }
        if newestCachedVersion > revision {
            for value in newer() where value.version > revision && isInScope(value) && matches(value) {
                candidates[value.id] = value
            }
        }

        var keyed: [(key: SortKey, element: Entity)] = []
        keyed.reserveCapacity(candidates.count)
        for value in candidates.values {
            let key = spec.sortKey(for: value)
            guard window.contains(key) else { continue }
            let isCovered = isFirst || !Self.contains(key, bound: oldBound, isComplete: wasComplete, forward: forward)
            if belongs(value, isCovered: isCovered, revision: revision, paged: paged) { keyed.append((key, value)) }
        }
        keyed.sort { $0.key < $1.key }
        let old = items
        window.replaceItems(with: keyed)
        let change = CollectionChange(from: old, to: items)
        return change.isEmpty ? nil : change
    }

    /// A later page placed element by element (see ``applyPage(_:revision:newestCachedVersion:current:newer:)``):
    /// listed elements keep being judged as they were (events keep them current), so only the
    /// page's elements and cached values newer than the page can change their place.
    private mutating func placePage(
        _ page: QueryPage<Entity>, revision: Int, newestCachedVersion: Int,
        current: (String) -> Entity?, newer: () -> [Entity], oldBound: SortKey?, wasComplete: Bool
    ) -> CollectionChange? {
        let forward = spec.growth == .forward
        var values: [Entity] = []
        var paged: Set<String> = []
        for element in page.items where paged.insert(element.id).inserted {
            let value = current(element.cacheKey) ?? element
            if value.version <= revision { confirmed.insert(element.id) }
            values.append(value)
        }
        if newestCachedVersion > revision {
            for value in newer() where value.version > revision && !paged.contains(value.id) && isInScope(value) && matches(value) {
                values.append(value)
            }
        }
        var total: CollectionChange?
        for value in values {
            let key = spec.sortKey(for: value)
            let isCovered = !Self.contains(key, bound: oldBound, isComplete: wasComplete, forward: forward)
            let belongs = belongs(value, isCovered: isCovered, revision: revision, paged: paged)
            guard let change = window.apply(value, key: key, matches: belongs) else { continue }
            total = total.map { $0.followed(by: change) } ?? change
        }
        return total
    }

    /// Whether a value a page read at `revision` concerns belongs to the list: in the range the
    /// page newly covers, a value the page saw is listed exactly when the page lists it (and
    /// loses its confirmation otherwise); anything else is judged by the client's matching.
    private mutating func belongs(_ value: Entity, isCovered: Bool, revision: Int, paged: Set<String>) -> Bool {
        guard isCovered && value.version <= revision else { return matches(value) }
        let listed = paged.contains(value.id)
        if !listed { confirmed.remove(value.id) }
        return listed
    }

    private static func contains(_ key: SortKey, bound: SortKey?, isComplete: Bool, forward: Bool) -> Bool {
        if isComplete { return true }
        guard let bound else { return false }
        return forward ? key <= bound : bound <= key
    }

    // MARK: Reload

    /// Starts over from the first page (after a resync), keeping the elements shown until the
    /// pages replace them; the reload goes on until the window reaches as far as it did.
    /// While a page is under way the reload waits for it (see ``nextReloadRequest()``).
    ///
    /// With `discarding` (the server's history started over, so nothing shown is the server's
    /// word), every element is dropped now — even a first page that fails must not leave the
    /// old history shown — and the reload ends with the first page: sort positions of the old
    /// history say nothing of how far to reach in the new one.
    /// - Returns: the change that dropped the elements, if any.
    @discardableResult
    mutating func beginReload(discarding: Bool = false) -> CollectionChange? {
        defer { checkAfterMutation() }
        var dropped: CollectionChange?
        if discarding {
            let old = items
            window.replaceItems(with: [])
            window.setBound(nil, isComplete: false)
            confirmed.removeAll()
            reloadTarget = nil
            hasLoadedFirstPage = false
            boundary = nil
            let change = CollectionChange(from: old, to: items)
            dropped = change.isEmpty ? nil : change
        }
        if isLoading { reloadPending = true } else { restart() }
        return dropped
    }

    private mutating func restart() {
        reloadPending = false
        if hasLoadedFirstPage {
            reloadTarget = ReloadTarget(bound: window.bound, isComplete: window.isComplete)
        }
        hasLoadedFirstPage = false
        boundary = nil
    }

    /// After a page was applied: the request that continues a reload (a pending one starts
    /// over, a running one goes on until it reaches as far as the window did), if any.
    mutating func nextReloadRequest() -> ChatRequest? {
        defer { checkAfterMutation() }
        if reloadPending { restart() } else if !reloadNeedsMore() { return nil }
        return beginPageLoad()
    }

    /// Whether a reload needs another page to reach as far as the window did before; clears
    /// the target once reached.
    private mutating func reloadNeedsMore() -> Bool {
        guard let target = reloadTarget else { return false }
        let reached: Bool
        if window.isComplete {
            reached = true
        } else if target.isComplete {
            reached = false
        } else if let bound = window.bound, let goal = target.bound {
            reached = spec.growth == .forward ? !(bound < goal) : !(goal < bound)
        } else {
            reached = target.bound == nil
        }
        if reached { reloadTarget = nil }
        return !reached
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
    private mutating func checkAfterMutation() {
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
