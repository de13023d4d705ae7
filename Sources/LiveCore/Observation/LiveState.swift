/// A snapshot value in a box, so that the observation machinery can carry any snapshot type
/// without being generic (unspecialized generic code pays a metadata lookup on nearly every
/// operation; the machinery runs once per observer per commit and must not).
@usableFromInline
final class SnapshotBox<Value: Sendable>: Sendable {
    @usableFromInline let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }

    /// The value in `box`, which must be a `SnapshotBox<Value>`.
    @inlinable
    static func unbox(_ box: any AnyObject & Sendable) -> Value {
        unsafeDowncast(box, to: SnapshotBox<Value>.self).value
    }
}

/// Everything an observer of a live value sees at one moment: the snapshot and its statuses.
/// Immutable once delivered.
@usableFromInline
struct LiveState: Sendable {
    /// A `SnapshotBox` of the value's snapshot type.
    @usableFromInline var snapshot: any AnyObject & Sendable
    @usableFromInline var dataStatus: DataStatus
    @usableFromInline var loadingStatus: LoadingStatus
    @usableFromInline var error: (any Error)?
    @usableFromInline var hasNext: Bool = false
    @usableFromInline var hasPrevious: Bool = false
    /// Set only while a commit is under way: the box ``replaceSnapshot(with:)`` took out, moved
    /// rather than copied, so that the commit's reducers read the old elements without another
    /// reference being counted. The commit clears it before anyone else sees the state.
    @usableFromInline var retired: (any AnyObject & Sendable)?

    @inlinable
    init(
        snapshot: any AnyObject & Sendable, dataStatus: DataStatus, loadingStatus: LoadingStatus,
        error: (any Error)?, hasNext: Bool = false, hasPrevious: Bool = false
    ) {
        self.snapshot = snapshot
        self.dataStatus = dataStatus
        self.loadingStatus = loadingStatus
        self.error = error
        self.hasNext = hasNext
        self.hasPrevious = hasPrevious
    }

    /// Replaces the snapshot box during a commit, keeping the old one in ``retired``.
    /// Applies a publish's statuses and error: a new error replaces the last one; without one,
    /// a publish that gives a status clears the last error once the data is `.fresh` and no
    /// load is in error (the handle recovered). Otherwise the error stays.
    @inlinable
    mutating func apply(dataStatus: DataStatus?, loadingStatus: LoadingStatus?, error: (any Error)?) {
        if let dataStatus { self.dataStatus = dataStatus }
        if let loadingStatus { self.loadingStatus = loadingStatus }
        if let error {
            self.error = error
        } else if self.error != nil, dataStatus != nil || loadingStatus != nil, self.dataStatus == .fresh,
            self.loadingStatus != .error
        {
            self.error = nil
        }
    }

    @inlinable
    mutating func replaceSnapshot(with box: any AnyObject & Sendable) {
        var box = box
        swap(&snapshot, &box)
        retired = box
    }
}

/// One delivery to one observer: the state it leads to, and the change from the state that
/// observer saw last (`nil` for its first delivery).
@usableFromInline
struct Delivery: Sendable {
    @usableFromInline var state: LiveState
    @usableFromInline var change: CollectionChange?
    /// For an observer that fell far behind: the snapshot box it last saw, to diff from (see
    /// ``collectionChange(_:)``).
    @usableFromInline var rediffBase: (any AnyObject & Sendable)?

    @usableFromInline
    init(state: LiveState, change: CollectionChange?, rediffBase: (any AnyObject & Sendable)? = nil) {
        self.state = state
        self.change = change
        self.rediffBase = rediffBase
    }

    /// The change a collection observer receives: the delivered change, or — for an observer
    /// that fell far behind — the diff from the snapshot it last saw (O(n) once, for this
    /// delivery); `nil` only for the first delivery.
    @inlinable
    func collectionChange<Element: Identifiable & Equatable & Sendable>(_ element: Element.Type) -> CollectionChange? {
        guard let base = rediffBase else { return change }
        return CollectionChange(
            from: ListSnapshot<Element>.unbox(base).array, to: ListSnapshot<Element>.unbox(state.snapshot).array)
    }
}
