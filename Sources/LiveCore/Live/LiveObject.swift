/// A value that keeps itself current and tells its observers when it changes (Amity's
/// `AmityObject`).
///
/// Reading: outside callbacks, ``snapshot`` and the statuses are the newest state. Inside a
/// callback, the object passed in shows exactly the state being delivered.
///
/// Observing: ``observe(_:)`` (main actor) or ``observe(on:_:)`` returns a
/// ``NotificationToken``; each observer first receives the current state, then every change
/// (coalesced if it falls behind). ``values`` iterates snapshots with `for await`.
///
/// A handle keeps its source (and through it, the client behind it) alive. Thread-safe.
public final class LiveObject<Value: Sendable>: Sendable {
    @usableFromInline let source: LiveObjectSource<Value>
    /// The state shown by a handle passed into a callback; `nil` for live handles.
    @usableFromInline let pinned: LiveState?

    @usableFromInline
    init(source: LiveObjectSource<Value>, pinned: LiveState?) {
        self.source = source
        self.pinned = pinned
    }

    /// A live object that always holds `value` (a constant, `.fresh`).
    public convenience init(constant value: Value?) {
        self.init(source: LiveObjectSource(snapshot: value, dataStatus: .fresh), pinned: nil)
    }

    // The readers are inlinable so that they run specialized for `Value` in the caller's
    // module: unspecialized, every read would look up generic metadata (a hashed cache lookup).
    @inlinable var state: LiveState { pinned ?? source.center.state }

    /// The value, or `nil` when it does not exist (yet).
    @inlinable public var snapshot: Value? { SnapshotBox<Value?>.unbox(state.snapshot) }
    /// The value; the Amity SDK's name for ``snapshot``.
    @inlinable public var object: Value? { snapshot }
    /// Where the data comes from.
    @inlinable public var dataStatus: DataStatus { state.dataStatus }
    /// Whether a request for the data is under way.
    @inlinable public var loadingStatus: LoadingStatus { state.loadingStatus }
    /// The last error reported, if any; `nil` again once the handle is fresh after a failure
    /// (`dataStatus == .fresh`, `loadingStatus != .error`).
    @inlinable public var error: (any Error)? { state.error }

    /// Observes on the main actor. The block first receives the current state, then each change.
    /// - Returns: a token; keep it to keep observing (it also keeps this object alive); dropping it
    ///   ends the observation, so an unused result is a warning.
    public func observe(
        _ block: @escaping @MainActor @Sendable (LiveObject<Value>, (any Error)?) -> Void
    ) -> NotificationToken {
        observe(on: .main) { object, error in
            MainActor.assumeIsolated { block(object, error) }
        }
    }

    /// Observes in the given context. The block first receives the current state, then each
    /// change; per observer, calls never overlap and keep commit order.
    @inlinable
    public func observe(
        on context: DeliveryContext,
        _ block: @escaping @Sendable (LiveObject<Value>, (any Error)?) -> Void
    ) -> NotificationToken {
        let source = source
        return source.center.observe(on: context) { delivery in
            block(LiveObject(source: source, pinned: delivery.state), delivery.state.error)
        }
    }

    /// Calls `block` once on the main actor — with the first state that is not waiting for a
    /// request (`loadingStatus != .loading`) — and then stops observing. The observation lasts
    /// until that call even if the returned token is dropped.
    /// - Returns: a token to cancel before the call happens; discardable, as the observation
    ///   retains itself until its one call.
    @discardableResult
    public func observeOnce(
        _ block: @escaping @MainActor @Sendable (LiveObject<Value>, (any Error)?) -> Void
    ) -> NotificationToken {
        observeOnce(on: .main) { object, error in
            MainActor.assumeIsolated { block(object, error) }
        }
    }

    /// Calls `block` once in the given context — with the first state that is not waiting for a
    /// request (`loadingStatus != .loading`) — and then stops observing. The observation lasts
    /// until that call even if the returned token is dropped.
    /// - Returns: a token to cancel before the call happens; discardable, as the observation
    ///   retains itself until its one call.
    @discardableResult
    public func observeOnce(
        on context: DeliveryContext,
        _ block: @escaping @Sendable (LiveObject<Value>, (any Error)?) -> Void
    ) -> NotificationToken {
        let holder = TokenHolder()
        let token = observe(on: context) { object, error in
            guard object.loadingStatus != .loading, holder.claim() else { return }
            block(object, error)
            holder.invalidate()
        }
        holder.set(token)
        return token
    }

    /// The snapshots, as an `AsyncSequence`: first the current one, then each new one.
    /// Coalesces: an iteration that falls behind gets the newest snapshot, never a backlog.
    /// Ending the loop or cancelling the task ends the observation.
    public var values: LiveValues<Value> { LiveValues(source: source) }
}
