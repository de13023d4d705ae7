import Locking

/// A live total over a keyed set of contributions — the sum of one number per key — maintained
/// in O(1) per changed key, never re-summed.
///
/// It is the keyed counterpart of ``LiveCollection/sum(of:)``: where the parts are not an
/// ordered collection (the unread counts of the thousands of channels a user belongs to), a
/// change to one part adjusts the total by the difference and publishes it. Read the total
/// through ``object`` (observe it like any live object) or ``total``.
///
/// Thread-safe; updates are applied in the order they take the lock.
public final class LiveTally<Key: Hashable & Sendable, Value: AdditiveArithmetic & Equatable & Sendable>: Sendable {
    @usableFromInline
    struct Parts: Sendable {
        @usableFromInline var values: [Key: Value] = [:]
        @usableFromInline var total: Value = .zero

        @usableFromInline
        init() {}
    }

    /// Guards the parts and their running total. (The hot methods are inlinable, so they are
    /// specialized for the caller's key and value types.)
    @usableFromInline let parts = Lock(Parts())
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
        source = LiveObjectSource(snapshot: .zero, dataStatus: dataStatus, loadingStatus: loadingStatus, owner: owner)
    }

    /// The total as a live object; observers are called only when it (or a status) changes.
    public var object: LiveObject<Value> { source.object }

    /// The current total.
    @inlinable
    public var total: Value { parts.withLock { $0.total } }

    /// The contribution of `key`, if any.
    public func value(for key: Key) -> Value? { parts.withLock { $0.values[key] } }

    /// The number of keys contributing.
    public var count: Int { parts.withLock { $0.values.count } }

    /// Sets (or, with `nil`, removes) the contributions of some keys and publishes the new total
    /// once, if it changed.
    /// - Complexity: O(k) for k keys.
    @inlinable
    public func set(_ updates: some Sequence<(Key, Value?)>) {
        let (before, after) = parts.withLock { parts in
            let before = parts.total
            for (key, value) in updates {
                let old = value == nil ? parts.values.removeValue(forKey: key) : parts.values.updateValue(value!, forKey: key)
                parts.total = parts.total - (old ?? .zero) + (value ?? .zero)
            }
            return (before, parts.total)
        }
        if before != after { publishTotal() }
    }

    /// Sets (or, with `nil`, removes) the contribution of one key.
    /// - Complexity: O(1).
    @inlinable
    public func set(_ value: Value?, for key: Key) {
        set(CollectionOfOne((key, value)))
    }

    /// Publishes new statuses (and the total with them).
    public func publish(dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil, error: (any Error)? = nil) {
        source.publish(dataStatus: dataStatus, loadingStatus: loadingStatus, error: error)
        publishTotal()
    }

    /// Publishes the newest total, read inside the source's commit so that concurrent updates
    /// never leave an older total published last.
    @inlinable
    func publishTotal() {
        source.update { _ in total }
    }
}
