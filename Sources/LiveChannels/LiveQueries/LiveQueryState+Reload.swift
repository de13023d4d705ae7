import ChatAPI
import LiveCore

/// Reloading a list from its first page (after a reconnect that cannot resume, or on demand),
/// keeping what it shows until the new pages replace it.
extension LiveQueryState {
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
            coveredRevision = nil
            let change = CollectionChange(from: old, to: items)
            dropped = change.isEmpty ? nil : change
        }
        if isLoading { reloadPending = true } else { restart() }
        return dropped
    }

    mutating func restart() {
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
    mutating func reloadNeedsMore() -> Bool {
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
}
