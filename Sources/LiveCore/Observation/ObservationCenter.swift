import Dispatch
import Synchronization

/// The storage behind a live value: owns the lock around its state and the
/// ``ObserverRegistry`` state machine, and carries out what the registry decides — running
/// drains in their delivery contexts, waking parked iterators. Shared by every handle on the
/// same value.
@usableFromInline
final class ObservationCenter: Sendable {
    /// An aggregate folded in *during* every commit, under the lock, so that it is never behind
    /// (see `LiveCollection.reduce`). Made by inlinable code, so both closures are specialized
    /// for the caller's types.
    @usableFromInline
    struct Reducer: Sendable {
        /// Folds one commit (old state, new state, change) in; returns `false` once the reducer
        /// is no longer wanted, and is then dropped.
        @usableFromInline let fold: @Sendable (LiveState, LiveState, CollectionChange) -> Bool
        /// Publishes the newest aggregate; called after the commit, outside the lock.
        @usableFromInline let publish: @Sendable () -> Void
        /// Whether the aggregate is still wanted (its derived value exists).
        @usableFromInline let isAlive: @Sendable () -> Bool

        @inlinable
        init(
            fold: @escaping @Sendable (LiveState, LiveState, CollectionChange) -> Bool,
            publish: @escaping @Sendable () -> Void,
            isAlive: @escaping @Sendable () -> Bool
        ) {
            self.fold = fold
            self.publish = publish
            self.isAlive = isAlive
        }
    }

    private struct Storage: Sendable {
        var state: LiveState
        var registry = ObserverRegistry()
        var reducers: [Reducer] = []
    }
    private let storage: Mutex<Storage>

    init(state: LiveState) {
        storage = Mutex(Storage(state: state))
    }

    /// The newest state.
    var state: LiveState {
        storage.withLock { $0.state }
    }

    /// Runs `body` with the current state, under the lock: no commit happens meanwhile.
    func withCurrentState<Result>(_ body: (LiveState) -> Result) -> Result {
        storage.withLock { body($0.state) }
    }

    var observerCount: Int {
        storage.withLock { $0.registry.observerCount }
    }

    /// Commits a new state. `makeState` receives the current state and returns the new one with
    /// the change leading to it (`.empty` when only statuses changed), or `nil` to commit
    /// nothing. It runs under the lock, so read-modify-write commits from several threads never
    /// lose updates.
    @usableFromInline
    func commit(_ makeState: (LiveState) -> (LiveState, CollectionChange)?) {
        let outcome = storage.withLock { storage -> (ObserverRegistry.Effects, [Reducer])? in
            guard let (newState, change) = makeState(storage.state) else { return nil }
            let oldState = storage.state
            storage.state = newState
            // Fold without mutating the array (it is shared with the previous commit's
            // publishers); drop reducers only in the rare commit where one has gone.
            var gone = false
            for reducer in storage.reducers where !reducer.fold(oldState, newState, change) { gone = true }
            if gone { storage.reducers.removeAll { !$0.isAlive() } }
            return (storage.registry.commit(change), storage.reducers)
        }
        guard let (effects, reducers) = outcome else { return }
        for reducer in reducers { reducer.publish() }
        for waiter in effects.toWake { waiter.resume() }
        for (context, drain) in effects.toSchedule { Self.schedule(drain, in: context) }
    }

    /// Registers the reducer `make` builds from the current state, atomically with respect to
    /// commits, and publishes its first aggregate.
    @usableFromInline
    func attach(_ make: (LiveState) -> Reducer) {
        let reducer = storage.withLock { storage in
            let reducer = make(storage.state)
            storage.reducers.append(reducer)
            return reducer
        }
        reducer.publish()
    }

    // MARK: Push observers

    /// Registers `callback`; its first delivery carries the current state and a `nil` change.
    func observe(
        on context: DeliveryContext, _ callback: @escaping @Sendable (Delivery) -> Void
    ) -> NotificationToken {
        let observer = Observer(callback)
        let drain: @Sendable () -> Void
        let id: Int
        (id, drain) = storage.withLock { storage in
            let id = storage.registry.upcomingID
            let drain: @Sendable () -> Void = { [self] in self.drain(id, observer) }
            return (storage.registry.addObserver(context: context, drain: drain), drain)
        }
        let token = NotificationToken { [self] in
            observer.close()
            _ = storage.withLock { $0.registry.remove(id) }
        }
        Self.schedule(drain, in: context)
        return token
    }

    private static func schedule(_ drain: @escaping @Sendable () -> Void, in context: DeliveryContext) {
        switch context {
        case .synchronous: drain()
        case .queue(let queue): queue.async(execute: drain)
        case .main: DispatchQueue.main.async(execute: drain)
        }
    }

    /// Delivers everything pending for one observer, in order, then marks it idle.
    private func drain(_ id: Int, _ observer: Observer) {
        while true {
            let delivery = storage.withLock { storage -> Delivery? in
                guard case .deliver(let change) = storage.registry.take(id) else { return nil }
                return Delivery(state: storage.state, change: change)
            }
            guard let delivery, !observer.isClosed else { return }
            observer.deliver(delivery)
        }
    }

    // MARK: Pull observers (async iterators)

    func addIterator() -> Int {
        storage.withLock { $0.registry.addIterator() }
    }

    func removeIterator(_ id: Int) {
        storage.withLock { $0.registry.remove(id) }?.resume()
    }

    /// The next delivery for iterator `id`, waiting for a commit if none is pending; `nil` once
    /// the iterator was removed (its task cancelled or its loop ended).
    func next(forIterator id: Int) async -> Delivery? {
        while true {
            let taken = storage.withLock { storage -> (ObserverRegistry.Take, LiveState?) in
                let take = storage.registry.take(id)
                guard case .deliver = take else { return (take, nil) }
                return (take, storage.state)
            }
            switch taken {
            case (.gone, _): return nil
            case (.deliver(let change), let state?): return Delivery(state: state, change: change)
            default: break
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    if !storage.withLock({ $0.registry.park(id, waiter) }) { waiter.resume() }
                }
            } onCancel: {
                removeIterator(id)
            }
        }
    }
}
