import Locking

extension LiveCollection {
    /// A live aggregate of this collection, maintained incrementally: each commit costs one
    /// `adding`/`removing` call per inserted, deleted or modified element — never a pass over the
    /// whole collection (only the state at creation is folded in full).
    ///
    /// The aggregate is folded inside each commit of the collection, so right after a commit
    /// returns, the aggregate's `snapshot` already reflects it. `adding` and `removing` therefore
    /// run under the collection's lock: keep them pure (no access to live values). They must
    /// undo each other, as `+` and `-` do for a sum: for every aggregate `a` and element `e`,
    /// `removing(adding(a, e), e) == a`.
    ///
    /// Observers are called only when the aggregate or a status changes. While nobody observes
    /// the result, a commit only folds (the result catches up when read), so an unobserved
    /// aggregate adds just the fold to each commit. The result keeps this collection alive; the
    /// collection does not keep the result alive.
    /// - Complexity: O(k) per commit of k changed elements; O(n) once, at creation.
    @inlinable
    public func reduce<Result: Sendable & Equatable>(
        _ initial: Result,
        adding: @escaping @Sendable (Result, Element) -> Result,
        removing: @escaping @Sendable (Result, Element) -> Result
    ) -> LiveObject<Result> {
        reduction(initial) { aggregate, removed, added in
            if let removed { aggregate = removing(aggregate, removed) }
            if let added { aggregate = adding(aggregate, added) }
        }
    }

    /// The reduction behind ``reduce(_:adding:removing:)`` and ``sum(of:)``: `replace` takes one
    /// element out of the aggregate and/or puts one in (a modification does both in one call).
    @inlinable
    func reduction<Result: Sendable & Equatable>(
        _ initial: Result,
        replace: @escaping @Sendable (inout Result, _ removed: Element?, _ added: Element?) -> Void
    ) -> LiveObject<Result> {
        let cell = ReductionCell<Result>(aggregate: initial, collection: source.center)
        // Unobserved, the derived value is brought current when read; observed, after every
        // commit that changes the aggregate.
        let derived = LiveObjectSource<Result>(
            upstream: ObservationCenter.Upstream(
                publishPending: { center in cell.publish(into: center) },
                setObserved: { observed in cell.setObserved(observed) }))
        weak let weakDerived = derived
        source.center.attach { state in
            let elements = ListSnapshot<Element>.unbox(state.snapshot).array
            // Under the collection's lock, like every access to the memory.
            let whole = elements.reduce(into: initial) { aggregate, element in replace(&aggregate, nil, element) }
            cell.memory.pointee.record(whole, state)
            return ObservationCenter.Reducer(
                fold: { (oldState: borrowing ObservationCenter.Reducer.Old, newState: borrowing LiveState, change) in
                    guard cell.isAlive.load() else { return .gone }
                    // The fold runs under the collection's lock, which guards the memory.
                    let memory = cell.memory
                    var aggregate = memory.pointee.aggregate
                    if change.storage !== CollectionChange.Storage.empty {
                        // Index through the boxes: no array is copied or retained.
                        let old = ListSnapshot<Element>.unbox(oldState.snapshot)
                        let new = ListSnapshot<Element>.unbox(newState.snapshot)
                        for index in change.storage.deletions { replace(&aggregate, old[index], nil) }
                        for (from, to) in zip(change.storage.modifications, change.storage.modificationsInNew) {
                            replace(&aggregate, old[from], new[to])
                        }
                        for move in change.storage.moves where move.isModified {
                            replace(&aggregate, old[move.from], new[move.to])
                        }
                        for index in change.storage.insertions { replace(&aggregate, nil, new[index]) }
                    }
                    guard
                        aggregate != memory.pointee.aggregate || newState.dataStatus != oldState.dataStatus
                            || newState.loadingStatus != oldState.loadingStatus || newState.error != nil
                    else { return .quiet }
                    memory.pointee.record(aggregate, newState)
                    return memory.pointee.isObserved ? .publish : .quiet
                },
                publish: {
                    guard let derived = weakDerived else { return }
                    cell.publish(into: derived.center)
                })
        }
        // The derived value keeps this collection alive; when it goes, the reducer is dropped at
        // the next commit.
        derived.retain(source)
        derived.retain(ReductionCell<Result>.Lifetime(cell))
        return derived.object
    }

    /// The live sum of `value` over the elements, maintained incrementally (see
    /// ``reduce(_:adding:removing:)``).
    /// - Complexity: O(k) per commit of k changed elements.
    @inlinable
    public func sum<Number: AdditiveArithmetic & Sendable>(
        of value: @escaping @Sendable (Element) -> Number
    ) -> LiveObject<Number> {
        reduction(.zero) { sum, removed, added in
            if let removed { sum -= value(removed) }
            if let added { sum += value(added) }
        }
    }

    /// The live number of elements satisfying `predicate`, maintained incrementally.
    /// - Complexity: O(k) per commit of k changed elements.
    @inlinable
    public func count(where predicate: @escaping @Sendable (Element) -> Bool) -> LiveObject<Int> {
        sum { predicate($0) ? 1 : 0 }
    }
}

/// The state of one incremental reduction, shared by the fold (run inside the collection's
/// commits) and the derived value it publishes to.
///
/// The memory is guarded by the collection's lock: the fold runs under it, and everything else
/// takes it (``ObservationCenter/withLock(_:)``). One lock per commit, not two.
@usableFromInline
// @unchecked: `memory` is guarded by the collection's lock (its ObservationCenter's Lock),
// taken by every access (`withMemory`, or the fold and `attach`, which run under it).
final class ReductionCell<Result: Sendable & Equatable>: @unchecked Sendable {
    /// Guarded by `collection`'s lock.
    @usableFromInline let memory: UnsafeMutablePointer<ReductionMemory<Result>>
    /// The collection folded (weak: it holds this cell through its reducer).
    @usableFromInline weak let collection: ObservationCenter?
    /// Cleared when the derived value goes; the next fold then drops the reducer.
    @usableFromInline let isAlive = AtomicValue(true)

    @inlinable
    init(aggregate: Result, collection: ObservationCenter) {
        memory = .allocate(capacity: 1)
        memory.initialize(to: ReductionMemory(aggregate: aggregate))
        self.collection = collection
    }

    @inlinable
    deinit {
        memory.deinitialize(count: 1)
        memory.deallocate()
    }

    /// Runs `body` on the memory under the collection's lock (or alone, once the collection
    /// is gone and no fold can run).
    @inlinable
    func withMemory<Value>(_ body: (inout ReductionMemory<Result>) -> Value) -> Value {
        guard let collection else { return body(&memory.pointee) }
        return collection.withLock { body(&memory.pointee) }
    }

    @inlinable
    func setObserved(_ observed: Bool) {
        withMemory { $0.isObserved = observed }
    }

    /// Commits the newest aggregate (with the collection's statuses) into `center`, the derived
    /// value's, unless it has it already. Reads the aggregate inside that commit, so concurrent
    /// publishers never commit an older aggregate after a newer one.
    @inlinable
    func publish(into center: ObservationCenter) {
        guard withMemory({ $0.isPending }) else { return }
        center.commit { state in
            let latest = withMemory { memory -> ReductionMemory<Result>? in
                guard memory.isPending else { return nil }
                memory.isPending = false
                return memory
            }
            guard let latest else { return nil }
            state.snapshot = SnapshotBox<Result?>(latest.aggregate)
            state.apply(dataStatus: latest.dataStatus, loadingStatus: latest.loadingStatus, error: latest.error)
            return .empty
        }
    }

    /// Kept by the derived value: when released, tells the fold that nobody wants the
    /// aggregate any more.
    @usableFromInline
    final class Lifetime: Sendable {
        let cell: ReductionCell

        @usableFromInline
        init(_ cell: ReductionCell) {
            self.cell = cell
        }

        deinit { cell.isAlive.store(false) }
    }
}

/// What an incremental reduction remembers between commits: the newest aggregate, the
/// collection's statuses with it, whether the derived value has yet to receive them, and
/// whether anyone observes it.
@usableFromInline
struct ReductionMemory<Result: Sendable>: Sendable {
    @usableFromInline var aggregate: Result
    @usableFromInline var dataStatus: DataStatus = .notExist
    @usableFromInline var loadingStatus: LoadingStatus = .notLoading
    @usableFromInline var error: (any Error)?
    @usableFromInline var isPending = true
    @usableFromInline var isObserved = false

    @inlinable
    init(aggregate: Result) {
        self.aggregate = aggregate
    }

    @inlinable
    mutating func record(_ aggregate: Result, _ state: LiveState) {
        self.aggregate = aggregate
        dataStatus = state.dataStatus
        loadingStatus = state.loadingStatus
        error = state.error
        isPending = true
    }
}
