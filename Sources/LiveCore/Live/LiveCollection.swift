/// An ordered collection that keeps itself current and tells its observers exactly what changed
/// (Amity's `AmityCollection`).
///
/// Reading: outside callbacks, ``snapshots`` and the statuses are the newest state. Inside a
/// callback, the collection passed in shows exactly the snapshot the delivered change leads to,
/// so a table view's data source never sees indices of a different state.
///
/// Observing: ``observe(_:)`` (main actor) or ``observe(on:_:)`` returns a
/// ``NotificationToken``; each observer first receives the current state with a `nil` change,
/// then changes in UIKit's conventions (see ``CollectionChange``), coalesced into one correct
/// change if it falls behind. ``updates`` iterates with `for await`.
///
/// Paging: ``nextPage()`` and ``previousPage()`` ask whoever backs the collection to load more;
/// the result arrives as an ordinary change.
///
/// A handle keeps its source (and through it, the client behind it) alive. Thread-safe.
public final class LiveCollection<Element: Identifiable & Equatable & Sendable>: Sendable {
    @usableFromInline let source: LiveCollectionSource<Element>
    /// The state shown by a handle passed into a callback; `nil` for live handles.
    @usableFromInline let pinned: LiveState?

    @usableFromInline
    init(source: LiveCollectionSource<Element>, pinned: LiveState?) {
        self.source = source
        self.pinned = pinned
    }

    /// A live collection that always holds `elements` (a constant, `.fresh`).
    public convenience init(constant elements: [Element]) {
        self.init(source: LiveCollectionSource(snapshots: elements, dataStatus: .fresh), pinned: nil)
    }

    /// A live collection that failed before it could load anything: empty, with
    /// `dataStatus == .error`, `loadingStatus == .error` and `error` set.
    public convenience init(failure error: any Error) {
        let source = LiveCollectionSource<Element>(dataStatus: .error)
        source.publish(loadingStatus: .error, error: error)
        self.init(source: source, pinned: nil)
    }

    // The readers are inlinable so that they run specialized for `Element` in the caller's
    // module: unspecialized, every read would look up generic metadata (a hashed cache lookup).
    @inlinable var state: LiveState { pinned ?? source.center.state }

    /// The elements.
    /// - Complexity: O(1) when the snapshot was published as an array or was read before;
    ///   O(n) the first time for a snapshot kept as a tree (live lists of the client's cache).
    ///   To show a list, prefer ``count`` and ``object(at:)``, which never build the array.
    @inlinable public var snapshots: [Element] { ListSnapshot<Element>.unbox(state.snapshot).array }
    /// The number of elements.
    /// - Complexity: O(1).
    @inlinable public var count: Int { ListSnapshot<Element>.unbox(state.snapshot).count }
    /// The element at `index`, or `nil` when `index` is out of range.
    /// - Complexity: O(log n) (O(1) for a snapshot published as an array).
    @inlinable
    public func object(at index: Int) -> Element? {
        let snapshot = ListSnapshot<Element>.unbox(state.snapshot)
        return index >= 0 && index < snapshot.count ? snapshot[index] : nil
    }
    /// Where the data comes from.
    @inlinable public var dataStatus: DataStatus { state.dataStatus }
    /// Whether a page load is under way.
    @inlinable public var loadingStatus: LoadingStatus { state.loadingStatus }
    /// The last error reported, if any; `nil` again once the handle is fresh after a failure
    /// (`dataStatus == .fresh`, `loadingStatus != .error`).
    @inlinable public var error: (any Error)? { state.error }
    /// Whether more elements can be loaded after the last one (``nextPage()``).
    @inlinable public var hasNext: Bool { state.hasNext }
    /// Whether more elements can be loaded before the first one (``previousPage()``).
    @inlinable public var hasPrevious: Bool { state.hasPrevious }

    /// Asks the backing to load the next page. Does nothing when there is no backing.
    public func nextPage() { source.pager?.loadNextPage() }
    /// Asks the backing to load the previous page. Does nothing when there is no backing.
    public func previousPage() { source.pager?.loadPreviousPage() }

    /// Observes on the main actor. The block first receives the current state with a `nil`
    /// change, then each change with the collection showing the state it leads to.
    /// - Returns: a token; keep it to keep observing (it also keeps this collection alive); dropping
    ///   it ends the observation, so an unused result is a warning.
    public func observe(
        _ block: @escaping @MainActor @Sendable (LiveCollection<Element>, CollectionChange?, (any Error)?) -> Void
    ) -> NotificationToken {
        observe(on: .main) { collection, change, error in
            MainActor.assumeIsolated { block(collection, change, error) }
        }
    }

    /// Observes in the given context. The block first receives the current state with a `nil`
    /// change, then each change; per observer, calls never overlap and keep commit order.
    @inlinable
    public func observe(
        on context: DeliveryContext,
        _ block: @escaping @Sendable (LiveCollection<Element>, CollectionChange?, (any Error)?) -> Void
    ) -> NotificationToken {
        let source = source
        return source.center.observe(on: context) { delivery in
            block(
                LiveCollection(source: source, pinned: delivery.state), delivery.collectionChange(Element.self),
                delivery.state.error)
        }
    }

    /// Calls `block` once on the main actor — with the first state that is not waiting for a
    /// page (`loadingStatus != .loading`) — and then stops observing. As for any first call of
    /// an observer, the change is `nil`: the block has seen no earlier snapshot. The observation
    /// lasts until that call even if the returned token is dropped.
    /// - Returns: a token to cancel before the call happens; discardable, as the observation
    ///   retains itself until its one call.
    @discardableResult
    public func observeOnce(
        _ block: @escaping @MainActor @Sendable (LiveCollection<Element>, CollectionChange?, (any Error)?) -> Void
    ) -> NotificationToken {
        observeOnce(on: .main) { collection, change, error in
            MainActor.assumeIsolated { block(collection, change, error) }
        }
    }

    /// Calls `block` once in the given context — with the first state that is not waiting for a
    /// page (`loadingStatus != .loading`) — and then stops observing. The change is always `nil`
    /// (the block's first and only call). The observation lasts until that call even if the
    /// returned token is dropped.
    /// - Returns: a token to cancel before the call happens; discardable, as the observation
    ///   retains itself until its one call.
    @discardableResult
    public func observeOnce(
        on context: DeliveryContext,
        _ block: @escaping @Sendable (LiveCollection<Element>, CollectionChange?, (any Error)?) -> Void
    ) -> NotificationToken {
        let holder = TokenHolder()
        let token = observe(on: context) { collection, _, error in
            guard collection.loadingStatus != .loading, holder.claim() else { return }
            block(collection, nil, error)
            holder.invalidate()
        }
        holder.set(token)
        return token
    }

    /// The updates, as an `AsyncSequence` of snapshot + change.
    public var updates: LiveUpdates<Element> { LiveUpdates(source: source) }
}
