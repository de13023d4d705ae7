import Locking

/// A live total over a keyed set of contributions — the sum of one number per key — maintained
/// in O(1) per changed key, never re-summed.
///
/// It is the keyed counterpart of ``LiveCollection/sum(of:)``: where the parts are not an
/// ordered collection (the unread counts of the thousands of channels a user belongs to), a
/// change to one part adjusts the total by the difference. Read the total through ``object``
/// (observe it like any live object) or ``total``.
///
/// Like a reduction, the tally publishes lazily: while nobody observes ``object``, an update
/// only adjusts the running total, and the object is brought current when read; once observed,
/// every update that changes the total (or a status) is published.
///
/// Thread-safe; updates are applied in the order they take the lock.
public final class LiveTally<Key: Hashable & Sendable, Value: AdditiveArithmetic & Equatable & Sendable>: Sendable {
    @usableFromInline
    struct Parts: Sendable {
        @usableFromInline var values: [Key: Value] = [:]
        @usableFromInline var total: Value = .zero
        /// The statuses ``object`` is to show.
        @usableFromInline var dataStatus: DataStatus
        @usableFromInline var loadingStatus: LoadingStatus
        @usableFromInline var error: (any Error)?
        /// Whether the object has yet to receive the newest total or statuses.
        @usableFromInline var isPending = true
        /// Whether anyone observes the object (then every change is published at once).
        @usableFromInline var isObserved = false

        @usableFromInline
        init(dataStatus: DataStatus, loadingStatus: LoadingStatus) {
            self.dataStatus = dataStatus
            self.loadingStatus = loadingStatus
        }
    }

    /// The parts and their running total, shared with the object's source (which reads them
    /// when it is brought current).
    @usableFromInline
    final class Shared: Sendable {
        /// Lock order: a leaf, taken inside the commits of the tally's object (see `LockRank`).
        @usableFromInline let parts: Lock<Parts>

        init(_ parts: Parts) {
            self.parts = Lock(parts, rank: .leaf)
        }

        /// Commits the newest total and statuses into `center` (the object's), unless it has
        /// them already. Reads them inside that commit, so concurrent publishers never leave an
        /// older total published last.
        /// - Parameter knownPending: skips the first check (the caller just marked an update).
        @inlinable
        func publish(into center: ObservationCenter, knownPending: Bool = false) {
            guard knownPending || parts.withLock({ $0.isPending }) else { return }
            center.commit { state in
                // Only what the object shows is read out (not the parts' dictionary).
                let latest = parts.withLock { parts -> (Value, DataStatus, LoadingStatus, (any Error)?)? in
                    guard parts.isPending else { return nil }
                    parts.isPending = false
                    return (parts.total, parts.dataStatus, parts.loadingStatus, parts.error)
                }
                guard let (total, dataStatus, loadingStatus, error) = latest else { return nil }
                state.snapshot = SnapshotBox<Value?>(total)
                state.apply(dataStatus: dataStatus, loadingStatus: loadingStatus, error: error)
                return .empty
            }
        }
    }

    @usableFromInline let shared: Shared
    @usableFromInline let source: LiveObjectSource<Value>

    /// Creates an empty tally (total `.zero`).
    /// - Parameters:
    ///   - dataStatus: the initial data status of ``object``.
    ///   - loadingStatus: the initial loading status of ``object``.
    ///   - owner: an object kept alive as long as the tally's live object.
    public init(
        dataStatus: DataStatus = .local, loadingStatus: LoadingStatus = .notLoading,
        owner: (any AnyObject & Sendable)? = nil
    ) {
        let shared = Shared(Parts(dataStatus: dataStatus, loadingStatus: loadingStatus))
        self.shared = shared
        source = LiveObjectSource(
            upstream: ObservationCenter.Upstream(
                publishPending: { center in shared.publish(into: center) },
                setObserved: { observed in shared.parts.withLock { $0.isObserved = observed } }))
        if let owner { source.retain(owner) }
    }

    /// The total as a live object; observers are called only when it (or a status) changes.
    public var object: LiveObject<Value> { source.object }

    /// The current total.
    @inlinable
    public var total: Value { shared.parts.withLock { $0.total } }

    /// The contribution of `key`, if any.
    public func value(for key: Key) -> Value? { shared.parts.withLock { $0.values[key] } }

    /// The number of keys contributing.
    public var count: Int { shared.parts.withLock { $0.values.count } }

    /// Sets (or, with `nil`, removes) the contributions of some keys; the object shows the new
    /// total once (published now if observed, else when next read), if it changed.
    /// - Complexity: O(k) for k keys.
    @inlinable
    public func set(_ updates: some Sequence<(Key, Value?)>) {
        let publishes = shared.parts.withLock { parts in
            let before = parts.total
            for (key, value) in updates {
                let old =
                    value == nil ? parts.values.removeValue(forKey: key) : parts.values.updateValue(value!, forKey: key)
                parts.total = parts.total - (old ?? .zero) + (value ?? .zero)
            }
            guard parts.total != before else { return false }
            parts.isPending = true
            return parts.isObserved
        }
        if publishes { shared.publish(into: source.center, knownPending: true) }
    }

    /// Sets (or, with `nil`, removes) the contribution of one key.
    /// - Complexity: O(1).
    @inlinable
    public func set(_ value: Value?, for key: Key) {
        set(CollectionOfOne((key, value)))
    }

    /// Publishes new statuses (and the total with them); omitted ones keep their value.
    public func publish(dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil, error: (any Error)? = nil) {
        let publishes = shared.parts.withLock { parts in
            if let dataStatus { parts.dataStatus = dataStatus }
            if let loadingStatus { parts.loadingStatus = loadingStatus }
            if let error {
                parts.error = error
            } else if dataStatus != nil || loadingStatus != nil, parts.dataStatus == .fresh,
                parts.loadingStatus != .error
            {
                parts.error = nil  // recovered, as a source's error clears
            }
            parts.isPending = true
            return parts.isObserved
        }
        if publishes { shared.publish(into: source.center, knownPending: true) }
    }
}
