import Locking

extension LiveObject {
    /// A live object combining the newest values of this object and `other`, recomputed when
    /// either changes.
    ///
    /// Statuses combine pessimistically: `.error` if either is in error, `.notExist` if either
    /// does not exist, `.fresh` only when both are fresh, `.local` otherwise; loading is
    /// `.loading` while either loads. The error is the latest reported by either.
    ///
    /// The result keeps both inputs alive.
    /// - Complexity: one call of `transform` per change of either input.
    public func combineLatest<Other: Sendable, Result: Sendable>(
        _ other: LiveObject<Other>,
        _ transform: @escaping @Sendable (Value?, Other?) -> Result?
    ) -> LiveObject<Result> {
        let derived = LiveObjectSource<Result>()
        // Lock order: a leaf, taken inside the derived value's commit (see `LockRank`).
        let latest = Lock<(LiveState?, LiveState?)>((nil, nil), rank: .leaf)
        // Each input stores its newest state, then the derived value is recomputed from both
        // inside the derived commit, so concurrent input changes never publish a stale pair.
        let recompute: @Sendable (LiveObjectSource<Result>?) -> Void = { derived in
            derived?.center.commit { state in
                let (first, second) = latest.withLock { $0 }
                guard let first, let second else { return nil }
                state.snapshot = SnapshotBox(
                    transform(SnapshotBox<Value?>.unbox(first.snapshot), SnapshotBox<Other?>.unbox(second.snapshot)))
                state.apply(
                    dataStatus: Self.combine(first.dataStatus, second.dataStatus),
                    loadingStatus: Self.combine(first.loadingStatus, second.loadingStatus),
                    error: first.error ?? second.error)
                return .empty
            }
        }
        let firstToken = source.center.observe(on: .synchronous) { [weak derived] delivery in
            latest.withLock { $0.0 = delivery.state }
            recompute(derived)
        }
        let secondToken = other.source.center.observe(on: .synchronous) { [weak derived] delivery in
            latest.withLock { $0.1 = delivery.state }
            recompute(derived)
        }
        derived.retain(firstToken)
        derived.retain(secondToken)
        return derived.object
    }

    static func combine(_ first: DataStatus, _ second: DataStatus) -> DataStatus {
        if first == .error || second == .error { return .error }
        if first == .notExist || second == .notExist { return .notExist }
        if first == .fresh && second == .fresh { return .fresh }
        return .local
    }

    static func combine(_ first: LoadingStatus, _ second: LoadingStatus) -> LoadingStatus {
        if first == .error || second == .error { return .error }
        if first == .loading || second == .loading { return .loading }
        if first == .loaded && second == .loaded { return .loaded }
        return .notLoading
    }
}
