import Locking

/// The writing side of a live collection: whoever owns the data (a live query of the client's
/// cache, your own code) commits new snapshots — with their change, or letting the core diff
/// them — statuses, pagination flags and errors here, in one step; every ``LiveCollection``
/// handle made from it delivers them.
///
/// A source lives as long as something holds it: its handles, the tokens and iterators
/// observing it, or you. Owners that should not keep it alive hold it weakly.
///
/// Thread-safe: commit from any thread; commits are applied in the order they take the lock.
public final class LiveCollectionSource<Element: Identifiable & Equatable & Sendable>: Sendable {
    @usableFromInline let center: ObservationCenter
    /// Lock order: a leaf (see `LockRank`), as is ``retained``'s.
    private let pagerBox: Lock<(any LiveCollectionPaging)?>
    private let retained: Lock<[any AnyObject & Sendable]>

    /// Creates a source.
    /// - Parameters:
    ///   - snapshots: the initial elements.
    ///   - dataStatus: defaults to `.local`.
    ///   - loadingStatus: whether a page load is under way; defaults to `.notLoading`.
    ///   - hasNext: whether more elements can be loaded after the last one.
    ///   - hasPrevious: whether more elements can be loaded before the first one.
    ///   - pager: receives `nextPage()`/`previousPage()`; kept alive by the source.
    public init(
        snapshots: [Element] = [], dataStatus: DataStatus = .local,
        loadingStatus: LoadingStatus = .notLoading, hasNext: Bool = false, hasPrevious: Bool = false,
        pager: (any LiveCollectionPaging)? = nil
    ) {
        center = ObservationCenter(
            state: LiveState(
                snapshot: ListSnapshot(snapshots), dataStatus: dataStatus, loadingStatus: loadingStatus, error: nil,
                hasNext: hasNext, hasPrevious: hasPrevious))
        pagerBox = Lock(pager, rank: .leaf)
        retained = Lock([], rank: .leaf)
    }

    /// A handle on this source, showing its newest state.
    public var collection: LiveCollection<Element> { LiveCollection(source: self, pinned: nil) }

    /// The newest elements.
    @inlinable public var snapshots: [Element] { ListSnapshot<Element>.unbox(center.state.snapshot).array }

    /// Whether any observer or async iterator is registered.
    public var isObserved: Bool { center.observerCount > 0 }

    /// Sets (or replaces) the pager.
    public func setPager(_ pager: (any LiveCollectionPaging)?) {
        pagerBox.withLock { $0 = pager }
    }

    /// Commits, in one step, whatever is given; omitted arguments keep their current value.
    /// Every observer is notified once.
    ///
    /// - Parameters:
    ///   - snapshots: the new elements.
    ///   - change: the change from the current elements to `snapshots`. When `nil`, the core
    ///     computes it (O(n) for the common cases, O(n log n) at worst). A given change must be
    ///     valid for the two snapshots (checked in debug builds).
    ///   - dataStatus: where the data now comes from.
    ///   - loadingStatus: whether a page load is now under way.
    ///   - hasNext: whether more elements can now be loaded after the last one.
    ///   - hasPrevious: whether more elements can now be loaded before the first one.
    ///   - error: a new error. Without one, the last error stays until another replaces
    ///     it, or until the handle recovers: a publish giving a status clears it when `dataStatus`
    ///     is then `.fresh` and `loadingStatus` not `.error`.
    @inlinable
    public func publish(
        snapshots: [Element]? = nil, change: CollectionChange? = nil,
        dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil,
        hasNext: Bool? = nil, hasPrevious: Bool? = nil, error: (any Error)? = nil
    ) {
        center.commit { state in
            let delta: CollectionChange
            if let snapshots {
                if let change {
                    assert(
                        Self.fits(change, from: state, to: snapshots),
                        "\(change) does not fit the current elements -> \(snapshots.count) elements")
                    delta = change
                } else {
                    delta = CollectionChange(from: ListSnapshot<Element>.unbox(state.snapshot).array, to: snapshots)
                }
                state.replaceSnapshot(with: ListSnapshot(snapshots))
            } else {
                delta = .empty
            }
            if let hasNext { state.hasNext = hasNext }
            if let hasPrevious { state.hasPrevious = hasPrevious }
            state.apply(dataStatus: dataStatus, loadingStatus: loadingStatus, error: error)
            return delta
        }
    }

    /// Commits elements kept as a ``PersistentArray`` with the change leading to them (never
    /// diffed), and whatever else is given, in one step. For owners that edit their elements a
    /// few at a time (the client's live lists): the commit costs O(1) in the number of elements,
    /// and observers that count and index rather than read ``snapshots`` never build an array.
    /// - Parameter change: must be valid from the current elements to `elements` (checked in
    ///   debug builds).
    @inlinable
    package func publish(
        elements: PersistentArray<Element>, change: CollectionChange,
        dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil,
        hasNext: Bool? = nil, hasPrevious: Bool? = nil, error: (any Error)? = nil
    ) {
        publish(
            snapshot: ListSnapshot(elements), change: change, dataStatus: dataStatus, loadingStatus: loadingStatus,
            hasNext: hasNext, hasPrevious: hasPrevious, error: error)
    }

    /// As ``publish(elements:change:dataStatus:loadingStatus:hasNext:hasPrevious:error:)``, for
    /// owners that keep more per element than observers see (a sort key with each element):
    /// observers read each element through `project`, which must be cheap.
    @inlinable
    package func publish<Stored: Sendable>(
        elements stored: PersistentArray<Stored>, as project: @escaping @Sendable (Stored) -> Element,
        change: CollectionChange, dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil,
        hasNext: Bool? = nil, hasPrevious: Bool? = nil, error: (any Error)? = nil
    ) {
        publish(
            snapshot: ListSnapshot(stored, project: project), change: change, dataStatus: dataStatus,
            loadingStatus: loadingStatus, hasNext: hasNext, hasPrevious: hasPrevious, error: error)
    }

    @inlinable
    func publish(
        snapshot: ListSnapshot<Element>, change: CollectionChange, dataStatus: DataStatus?,
        loadingStatus: LoadingStatus?, hasNext: Bool?, hasPrevious: Bool?, error: (any Error)?
    ) {
        center.commit { state in
            assert(
                change.isValid(oldCount: ListSnapshot<Element>.unbox(state.snapshot).count, newCount: snapshot.count),
                "\(change) does not fit the current elements -> \(snapshot.count) elements")
            state.replaceSnapshot(with: snapshot)
            if let hasNext { state.hasNext = hasNext }
            if let hasPrevious { state.hasPrevious = hasPrevious }
            state.apply(dataStatus: dataStatus, loadingStatus: loadingStatus, error: error)
            return change
        }
    }

    /// Commits elements computed from the current ones, atomically; the change is computed by
    /// the diff.
    @inlinable
    public func update(_ transform: ([Element]) -> [Element]) {
        center.commit { state in
            let current = ListSnapshot<Element>.unbox(state.snapshot).array
            let snapshots = transform(current)
            let change = CollectionChange(from: current, to: snapshots)
            state.replaceSnapshot(with: ListSnapshot(snapshots))
            return change
        }
    }

    /// Whether `change` fits the current elements of `state` and `snapshots` (debug checks).
    @usableFromInline
    static func fits(_ change: CollectionChange, from state: LiveState, to snapshots: [Element]) -> Bool {
        change.isValid(oldCount: ListSnapshot<Element>.unbox(state.snapshot).count, newCount: snapshots.count)
    }

    var pager: (any LiveCollectionPaging)? { pagerBox.withLock { $0 } }

    /// Keeps `object` alive as long as this source (and releases it with the source, so that
    /// its `deinit` can end what the source's backing started).
    package func retain(_ object: any AnyObject & Sendable) {
        retained.withLock { $0.append(object) }
    }
}
