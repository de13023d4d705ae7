import Locking

/// The writing side of a live object: whoever owns the data (the client's cache, a derived
/// value, your own code) commits new snapshots, statuses and errors here, and every
/// ``LiveObject`` handle made from it delivers them.
///
/// A source lives as long as something holds it: its handles, the tokens and iterators
/// observing it, or you. Owners that should not keep it alive (a cache) hold it weakly.
///
/// Thread-safe: commit from any thread; commits are applied in the order they take the lock.
public final class LiveObjectSource<Value: Sendable>: Sendable {
    @usableFromInline let center: ObservationCenter
    /// Objects this source keeps alive for its handles: the owner that answers for it (a client),
    /// or the upstream tokens of a derived value. Lock order: a leaf (see `LockRank`).
    private let retained: Lock<[any AnyObject & Sendable]>

    /// Creates a source.
    /// - Parameters:
    ///   - snapshot: the initial value, if any.
    ///   - dataStatus: defaults to `.local` when a snapshot is given, `.notExist` otherwise.
    ///   - loadingStatus: the initial loading status.
    ///   - owner: an object kept alive as long as this source (for example the client that
    ///     keeps the value current).
    public init(
        snapshot: Value? = nil, dataStatus: DataStatus? = nil,
        loadingStatus: LoadingStatus = .notLoading, owner: (any AnyObject & Sendable)? = nil
    ) {
        center = ObservationCenter(
            state: LiveState(
                snapshot: SnapshotBox(snapshot), dataStatus: dataStatus ?? (snapshot == nil ? .notExist : .local),
                loadingStatus: loadingStatus, error: nil))
        retained = Lock(owner.map { [$0] } ?? [], rank: .leaf)
    }

    /// Creates a source whose state comes from `upstream` (see ``ObservationCenter/Upstream``):
    /// it starts empty (`.notExist`) and is brought current when read or observed.
    @usableFromInline
    init(upstream: ObservationCenter.Upstream) {
        center = ObservationCenter(
            state: LiveState(
                snapshot: SnapshotBox<Value?>(nil), dataStatus: .notExist, loadingStatus: .notLoading, error: nil),
            upstream: upstream)
        retained = Lock([], rank: .leaf)
    }

    /// A handle on this source, showing its newest state.
    public var object: LiveObject<Value> { LiveObject(source: self, pinned: nil) }

    /// The newest snapshot.
    @inlinable public var snapshot: Value? { SnapshotBox<Value?>.unbox(center.state.snapshot) }

    /// Whether any observer or async iterator is registered.
    public var isObserved: Bool { center.observerCount > 0 }

    /// Commits, in one step, whatever is given: a new snapshot, statuses, an error. Omitted
    /// arguments keep their current value. Every observer is notified once.
    ///
    /// - Parameters:
    ///   - snapshot: the new value; pass `.some(nil)` to clear it.
    ///   - dataStatus: where the data now comes from.
    ///   - loadingStatus: whether a request is now under way.
    ///   - error: a new error. Without one, the last error stays until another replaces
    ///     it, or until the handle recovers: a publish giving a status clears it when `dataStatus`
    ///     is then `.fresh` and `loadingStatus` not `.error`.
    @inlinable
    public func publish(
        snapshot: Value?? = .none, dataStatus: DataStatus? = nil,
        loadingStatus: LoadingStatus? = nil, error: (any Error)? = nil
    ) {
        center.commit { state in
            if case .some(let value) = snapshot { state.snapshot = SnapshotBox(value) }
            state.apply(dataStatus: dataStatus, loadingStatus: loadingStatus, error: error)
            return .empty
        }
    }

    /// Commits a new snapshot computed from the current one, atomically (no lost updates when
    /// several threads update concurrently).
    @inlinable
    public func update(_ transform: (Value?) -> Value?) {
        center.commit { state in
            state.snapshot = SnapshotBox(transform(SnapshotBox<Value?>.unbox(state.snapshot)))
            return .empty
        }
    }

    /// Keeps `object` alive as long as this source.
    @usableFromInline
    func retain(_ object: any AnyObject & Sendable) {
        retained.withLock { $0.append(object) }
    }
}
