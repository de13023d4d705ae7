import Synchronization

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
    /// The value is published (observers called) only when it or a status changes. The result
    /// keeps this collection alive; the collection does not keep the result alive.
    /// - Complexity: O(k) per commit of k changed elements; O(n) once, at creation.
    @inlinable
    public func reduce<Result: Sendable & Equatable>(
        _ initial: Result,
        adding: @escaping @Sendable (Result, Element) -> Result,
        removing: @escaping @Sendable (Result, Element) -> Result
    ) -> LiveObject<Result> {
        let derived = LiveObjectSource<Result>()
        weak let weakDerived = derived
        // The newest aggregate and whether the derived value has yet to receive it. Written
        // during commits (under the collection's lock), read when publishing after them.
        let memory = Mutex(ReductionMemory(aggregate: initial))
        source.center.attach { state in
            let elements = SnapshotBox<[Element]>.unbox(state.snapshot)
            memory.withLock { $0.record(elements.reduce(initial, adding), state) }
            return ObservationCenter.Reducer(
                fold: { oldState, newState, change in
                    guard weakDerived != nil else { return false }
                    let old = SnapshotBox<[Element]>.unbox(oldState.snapshot)
                    let new = SnapshotBox<[Element]>.unbox(newState.snapshot)
                    memory.withLock { memory in
                        var aggregate = memory.aggregate
                        for index in change.deletions { aggregate = removing(aggregate, old[index]) }
                        for (from, to) in zip(change.modifications, change.modificationsInNew) {
                            aggregate = adding(removing(aggregate, old[from]), new[to])
                        }
                        for move in change.moves where move.isModified {
                            aggregate = adding(removing(aggregate, old[move.from]), new[move.to])
                        }
                        for index in change.insertions { aggregate = adding(aggregate, new[index]) }
                        if aggregate != memory.aggregate || newState.dataStatus != oldState.dataStatus
                            || newState.loadingStatus != oldState.loadingStatus || newState.error != nil
                        {
                            memory.record(aggregate, newState)
                        }
                    }
                    return true
                },
                publish: {
                    guard let derived = weakDerived else { return }
                    derived.center.commit { current in
                        let latest = memory.withLock { memory in
                            defer { memory.isPending = false }
                            return memory
                        }
                        guard latest.isPending else { return nil }
                        var next = current
                        next.snapshot = SnapshotBox<Result?>(latest.aggregate)
                        next.dataStatus = latest.dataStatus
                        next.loadingStatus = latest.loadingStatus
                        next.error = latest.error ?? current.error
                        return (next, .empty)
                    }
                },
                isAlive: { weakDerived != nil })
        }
        derived.retain(source)
        return derived.object
    }

    /// The live sum of `value` over the elements, maintained incrementally (see
    /// ``reduce(_:adding:removing:)``).
    /// - Complexity: O(k) per commit of k changed elements.
    @inlinable
    public func sum<Number: AdditiveArithmetic & Sendable>(
        of value: @escaping @Sendable (Element) -> Number
    ) -> LiveObject<Number> {
        reduce(.zero, adding: { $0 + value($1) }, removing: { $0 - value($1) })
    }

    /// The live number of elements satisfying `predicate`, maintained incrementally.
    /// - Complexity: O(k) per commit of k changed elements.
    @inlinable
    public func count(where predicate: @escaping @Sendable (Element) -> Bool) -> LiveObject<Int> {
        sum { predicate($0) ? 1 : 0 }
    }
}

/// What an incremental reduction remembers between commits: the newest aggregate, the
/// collection's statuses with it, and whether the derived value has yet to receive them.
@usableFromInline
struct ReductionMemory<Result: Sendable>: Sendable {
    @usableFromInline var aggregate: Result
    @usableFromInline var dataStatus: DataStatus = .notExist
    @usableFromInline var loadingStatus: LoadingStatus = .notLoading
    @usableFromInline var error: (any Error)?
    @usableFromInline var isPending = true

    @inlinable
    init(aggregate: Result) {
        self.aggregate = aggregate
    }

    @inlinable
    mutating func record(_ aggregate: Result, _ state: LiveState) {
        self.aggregate = aggregate
        dataStatus = state.dataStatus
        loadingStatus = state.loadingStatus
        error = state.error ?? error
        isPending = true
    }
}
