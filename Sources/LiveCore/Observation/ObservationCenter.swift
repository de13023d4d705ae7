import Dispatch
import Locking

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
    final class Reducer: Sendable {
        /// What a fold asks of the commit.
        @usableFromInline
        enum Verdict: Sendable {
            /// Nothing to publish (the aggregate is unchanged, or nobody observes it).
            case quiet
            /// Call ``Reducer/publish`` after the commit, outside the lock.
            case publish
            /// The aggregate is no longer wanted: drop the reducer.
            case gone
        }

        /// What a fold sees of the state before the commit.
        @usableFromInline
        struct Old: Sendable {
            /// The old snapshot's box.
            @usableFromInline let snapshot: any AnyObject & Sendable
            @usableFromInline let dataStatus: DataStatus
            @usableFromInline let loadingStatus: LoadingStatus
        }

        /// Folds one commit (old state, new state, change) in.
        @usableFromInline let fold: @Sendable (borrowing Old, borrowing LiveState, CollectionChange) -> Verdict
        /// Publishes the newest aggregate if it has not been published yet; called after the
        /// commit, outside the lock.
        @usableFromInline let publish: @Sendable () -> Void

        @inlinable
        init(
            fold: @escaping @Sendable (borrowing Old, borrowing LiveState, CollectionChange) -> Verdict,
            publish: @escaping @Sendable () -> Void
        ) {
            self.fold = fold
            self.publish = publish
        }
    }

    /// Where a value computed from another one (an incremental reduction) gets its state when
    /// it is not pushed on every upstream commit: unobserved, such a value is brought current
    /// only when read. Both closures run with no lock of this center held except where noted.
    @usableFromInline
    struct Upstream: Sendable {
        /// Commits into the given center (this one) whatever upstream has not published yet.
        @usableFromInline let publishPending: @Sendable (ObservationCenter) -> Void
        /// Told, under this center's lock, when the first observer registers (`true`) and when
        /// the last one leaves (`false`); upstream publishes on every commit only in between.
        @usableFromInline let setObserved: @Sendable (Bool) -> Void

        @inlinable
        init(
            publishPending: @escaping @Sendable (ObservationCenter) -> Void,
            setObserved: @escaping @Sendable (Bool) -> Void
        ) {
            self.publishPending = publishPending
            self.setObserved = setObserved
        }
    }

    private struct Storage: Sendable {
        var state: LiveState
        var registry = ObserverRegistry()
        var reducers: [Reducer] = []
    }
    /// Lock order: `LockRank.derivedValue` for a center with an upstream, whose commits and
    /// observer count take the upstream collection's lock (a reduction's memory); else
    /// `LockRank.liveValue`, taken under the cache's lock (publishing to a live object at
    /// registration) and holding only leaves (a snapshot's materialized array). Observers are
    /// called after it is released.
    private let storage: Lock<Storage>
    private let upstream: Upstream?

    @usableFromInline
    init(state: LiveState, upstream: Upstream? = nil) {
        storage = Lock(Storage(state: state), rank: upstream == nil ? .liveValue : .derivedValue)
        self.upstream = upstream
    }

    /// The newest state.
    @usableFromInline
    var state: LiveState {
        upstream?.publishPending(self)
        return storage.withLock { $0.state }
    }

    var observerCount: Int {
        storage.withLock { $0.registry.observerCount }
    }

    /// Commits a new state. `makeState` receives the current state to update in place and returns
    /// the change leading to the new one (`.empty` when only statuses changed), or `nil` — having
    /// changed nothing — to commit nothing. It runs under the lock, so read-modify-write commits
    /// from several threads never lose updates.
    ///
    /// - Complexity: O(1) with no observers and no reducers; otherwise O(observers) plus the
    ///   reducers' folds.
    @usableFromInline
    func commit(_ makeState: (inout LiveState) -> CollectionChange?) {
        // The common cases touch nothing but the state: no arrays are built, nothing is returned.
        let outcome = storage.withLock { storage -> (ObserverRegistry.Effects, [Reducer])? in
            if storage.reducers.isEmpty {
                guard let change = makeState(&storage.state) else { return nil }
                storage.state.retired = nil
                guard !storage.registry.isEmpty else { return nil }
                return (storage.registry.commit(change), [])
            }
            let (oldDataStatus, oldLoadingStatus) = (storage.state.dataStatus, storage.state.loadingStatus)
            guard let change = makeState(&storage.state) else { return nil }
            // What the folds need of the old state: its snapshot (moved out of the commit's
            // `retired` slot, or the current one when the commit kept it) and statuses.
            let old = Reducer.Old(
                snapshot: storage.state.retired.take() ?? storage.state.snapshot, dataStatus: oldDataStatus,
                loadingStatus: oldLoadingStatus)
            var publishes = false
            var gone: [Int] = []
            storage.reducers.withUnsafeBufferPointer { reducers in
                for index in reducers.indices {
                    // The array keeps each reducer alive throughout, so fold without retaining it:
                    // at a few nanoseconds per commit, reference counting is most of a fold's cost.
                    let verdict = Unmanaged.passUnretained(reducers[index])._withUnsafeGuaranteedRef {
                        $0.fold(old, storage.state, change)
                    }
                    switch verdict {
                    case .quiet: break
                    case .publish: publishes = true
                    case .gone: gone.append(index)
                    }
                }
            }
            for index in gone.reversed() { storage.reducers.remove(at: index) }
            if storage.registry.isEmpty && !publishes { return nil }
            // Each reducer publishes only what it has pending, so handing out all is harmless.
            let effects = storage.registry.isEmpty ? ObserverRegistry.Effects() : storage.registry.commit(change)
            return (effects, publishes ? storage.reducers : [])
        }
        guard let (effects, reducers) = outcome else { return }
        for reducer in reducers { reducer.publish() }
        for waiter in effects.toWake { waiter.resume() }
        for drain in effects.toSchedule { Self.schedule(drain.run, in: drain.context) }
    }

    /// Registers the reducer `make` builds from the current state, atomically with respect to
    /// commits.
    @usableFromInline
    func attach(_ make: (LiveState) -> Reducer) {
        storage.withLock { storage in
            storage.reducers.append(make(storage.state))
        }
    }

    /// Runs `body` under this value's lock: no commit (and no reducer's fold) runs meanwhile.
    /// Lets a reducer keep its memory under the lock its fold already runs under.
    @usableFromInline
    func withLock<Result>(_ body: () -> Result) -> Result {
        storage.withLock { _ in body() }
    }

    // MARK: Push observers

    /// Registers `callback`; its first delivery carries the current state and a `nil` change.
    @usableFromInline
    func observe(
        on context: DeliveryContext, _ callback: @escaping @Sendable (Delivery) -> Void
    ) -> NotificationToken {
        let observer = Observer(callback)
        let drain: @Sendable () -> Void
        let id: Int
        (id, drain) = storage.withLock { storage in
            let id = storage.registry.upcomingID
            let drain: @Sendable () -> Void = { [self] in self.drain(id, observer) }
            _ = storage.registry.addObserver(context: context, drain: drain)
            if storage.registry.observerCount == 1 { upstream?.setObserved(true) }
            return (id, drain)
        }
        upstream?.publishPending(self)
        let token = NotificationToken { [self] in
            observer.close()
            _ = storage.withLock { storage in self.remove(id, from: &storage) }
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
                switch storage.registry.take(id, current: storage.state.snapshot) {
                case .deliver(let change): return Delivery(state: storage.state, change: change)
                case .rediff(let base): return Delivery(state: storage.state, change: nil, rediffBase: base)
                case .gone, .upToDate: return nil
                }
            }
            guard let delivery, !observer.isClosed else { return }
            observer.deliver(delivery)
        }
    }

    // MARK: Pull observers (async iterators)

    func addIterator() -> Int {
        let id = storage.withLock { storage in
            let id = storage.registry.addIterator()
            if storage.registry.observerCount == 1 { upstream?.setObserved(true) }
            return id
        }
        upstream?.publishPending(self)
        return id
    }

    func removeIterator(_ id: Int) {
        storage.withLock { storage in remove(id, from: &storage) }?.resume()
    }

    /// Removes observer `id` (under the lock); tells upstream when it was the last one.
    private func remove(_ id: Int, from storage: inout Storage) -> ObserverRegistry.Waiter? {
        let observerCount = storage.registry.observerCount
        let waiter = storage.registry.remove(id)
        if observerCount == 1 && storage.registry.observerCount == 0 { upstream?.setObserved(false) }
        return waiter
    }

    /// The next delivery for iterator `id`, waiting for a commit if none is pending; `nil` once
    /// the iterator was removed (its task cancelled or its loop ended).
    func next(forIterator id: Int) async -> Delivery? {
        while true {
            let taken = storage.withLock { storage -> (ObserverRegistry.Take, LiveState?) in
                let take = storage.registry.take(id, current: storage.state.snapshot)
                switch take {
                case .deliver, .rediff: return (take, storage.state)
                case .gone, .upToDate: return (take, nil)
                }
            }
            switch taken {
            case (.gone, _): return nil
            case (.deliver(let change), let state?): return Delivery(state: state, change: change)
            case (.rediff(let base), let state?): return Delivery(state: state, change: nil, rediffBase: base)
            default: break
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    let parked = ObserverRegistry.Waiter(waiter)
                    if !storage.withLock({ $0.registry.park(id, parked) }) { parked.resume() }
                }
            } onCancel: {
                removeIterator(id)
            }
        }
    }
}
