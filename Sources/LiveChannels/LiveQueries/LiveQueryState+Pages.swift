import ChatAPI
import LiveCore

/// Loading pages: the request of the next page, and placing a page's values beside what events
/// changed meanwhile (a page speaks only for values no newer than its revision).
extension LiveQueryState {
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
    ///   - newer: the cached values with a version above `revision`, and those that live on the
    ///     device only (``CachedEntity/isLocal``: no page speaks for them); called only when the
    ///     cache may hold any (`newestCachedVersion > revision`: pass `Int.max` while it holds
    ///     local values).
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
        coveredRevision = isFirst ? revision : min(coveredRevision ?? revision, revision)
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
            for value in newer() where (value.version > revision || value.isLocal) && isInScope(value) && matches(value)
            {
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
    mutating func placePage(
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
            for value in newer()
            where (value.version > revision || value.isLocal) && !paged.contains(value.id) && isInScope(value)
                && matches(value)
            {
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
    /// loses its confirmation otherwise); anything else — a value that lives on the device only
    /// among them — is judged by the client's matching.
    mutating func belongs(_ value: Entity, isCovered: Bool, revision: Int, paged: Set<String>) -> Bool {
        guard isCovered && value.version <= revision && !value.isLocal else { return matches(value) }
        let listed = paged.contains(value.id)
        if !listed { confirmed.remove(value.id) }
        return listed
    }

    static func contains(_ key: SortKey, bound: SortKey?, isComplete: Bool, forward: Bool) -> Bool {
        if isComplete { return true }
        guard let bound else { return false }
        return forward ? key <= bound : bound <= key
    }
}
