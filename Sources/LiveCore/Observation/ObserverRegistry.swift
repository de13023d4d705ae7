/// The observation state machine of one live value: for each observer, what it has not been
/// told yet and whether a delivery to it is under way. A pure value, mutated under its owner's
/// lock; it decides, the owner (``ObservationCenter``) acts.
///
/// Coalescing lives here: an observer that has not received its previous delivery when a new
/// commit arrives gets **one** change, composed from its last delivered state to the newest,
/// never two changes whose indices no longer fit.
///
/// It is deliberately not generic over the snapshot type: the per-commit loop over all
/// observers then runs as plain, fully optimized code whatever the element type is.
struct ObserverRegistry: Sendable {
    /// What an observer has not been told yet.
    enum Pending: Sendable {
        case none
        /// It has not received its first (initial) delivery; its change will be `nil`.
        case initial
        /// The composed change from its last delivered state to the current one.
        case change(CollectionChange)
        /// It fell so far behind (``composedChangeLimit``) that its change is computed when it is
        /// delivered, by diffing its last delivered snapshot (``Entry/lastSeen``) with the
        /// current one.
        case rediff
    }

    /// Push observers are drained by a job; pull observers (async iterators) take deliveries
    /// themselves and may park a continuation to be woken by the next commit.
    enum Kind: Sendable {
        case push(context: DeliveryContext, drain: @Sendable () -> Void)
        case pull(waiter: Waiter?)
    }

    /// A parked iterator's continuation, boxed: `CheckedContinuation`'s layout is resilient, and
    /// an entry holding one inline would be copied and switched over through runtime witnesses
    /// on every commit, for every observer.
    final class Waiter: Sendable {
        private let continuation: CheckedContinuation<Void, Never>

        init(_ continuation: CheckedContinuation<Void, Never>) {
            self.continuation = continuation
        }

        func resume() {
            continuation.resume()
        }
    }

    struct Entry: Sendable {
        /// Removed: a hole in the table, skipped until the table is compacted.
        var isRemoved = false
        var pending: Pending = .initial
        /// Push observers: a drain is queued or running.
        var isScheduled = false
        var kind: Kind
        /// The snapshot box of its last delivery: where a ``Pending/rediff`` diffs from.
        var lastSeen: (any AnyObject & Sendable)?

        /// Takes the pending delivery in place (no copy of the entry), noting `current` as the
        /// snapshot it now sees; with nothing pending, marks a push observer idle.
        mutating func takePending(current: any AnyObject & Sendable) -> Take {
            let taken = pending
            switch taken {
            case .none:
                isScheduled = false
                return .upToDate
            case .initial:
                pending = .none
                lastSeen = current
                return .deliver(nil)
            case .change(let change):
                pending = .none
                lastSeen = current
                return .deliver(change)
            case .rediff:
                pending = .none
                let base = lastSeen
                lastSeen = current
                return base.map(Take.rediff) ?? .deliver(nil)
            }
        }
    }

    /// A push observer's drain to run in its context. A struct, not a tuple: a closure stored in
    /// an array of tuples is re-abstracted (a thunk allocated) on the way in and on the way out.
    struct Drain: Sendable {
        let context: DeliveryContext
        let run: @Sendable () -> Void
    }

    /// What the owner must do after a commit, outside the lock.
    struct Effects: Sendable {
        /// Drains to run, each in its context (each observer was idle).
        var toSchedule: [Drain] = []
        /// Parked iterators to wake.
        var toWake: [Waiter] = []
    }

    /// The outcome of taking an observer's pending delivery.
    enum Take: Sendable {
        /// The observer is gone.
        case gone
        /// Nothing is pending (a push observer is then marked idle).
        case upToDate
        /// Deliver the current state with this change (`nil`: the first delivery).
        case deliver(CollectionChange?)
        /// Deliver the current state with the change from this snapshot box (the observer's
        /// last delivered one), diffed by whoever knows the element type.
        case rediff(any AnyObject & Sendable)
    }

    // Entries in registration order. Ids only grow, so `ids` is sorted and an id is found by
    // binary search: cheaper than hashing it, twice per delivery. A removed entry leaves a hole
    // (`isRemoved`) until holes make up half of the table, which is then compacted — so removing
    // many observers costs amortized O(1) each, not a shift of the table each.
    private var ids: [Int] = []
    private var entries: [Entry] = []
    private var holes = 0
    private var nextID = 0

    /// The number of registered observers and iterators.
    var observerCount: Int { ids.count - holes }

    /// Whether no observer or iterator is registered.
    var isEmpty: Bool { observerCount == 0 }

    /// The id the next registration will get.
    var upcomingID: Int { nextID }

    /// The position of observer `id` in the table, if it is registered.
    /// - Complexity: O(log n).
    private func index(of id: Int) -> Int? {
        let low = ids.partitioningIndex { $0 >= id }
        guard low < ids.count, ids[low] == id, !entries[low].isRemoved else { return nil }
        return low
    }

    // MARK: Registration

    private mutating func add(_ entry: Entry) -> Int {
        let id = nextID
        nextID += 1
        ids.append(id)
        entries.append(entry)
        return id
    }

    /// Registers a push observer. Its first delivery is due at once: the caller must schedule
    /// `drain` in `context`.
    mutating func addObserver(context: DeliveryContext, drain: @escaping @Sendable () -> Void) -> Int {
        add(Entry(pending: .initial, isScheduled: true, kind: .push(context: context, drain: drain)))
    }

    /// Registers a pull observer (an async iterator); its first delivery is pending.
    mutating func addIterator() -> Int {
        add(Entry(pending: .initial, kind: .pull(waiter: nil)))
    }

    /// Removes an observer; returns a parked iterator's continuation, to wake.
    /// - Complexity: O(log n) amortized.
    mutating func remove(_ id: Int) -> Waiter? {
        guard let index = index(of: id) else { return nil }
        let entry = entries[index]
        // Keep the hole's id (the table stays sorted) but nothing else of the observer.
        entries[index] = Entry(isRemoved: true, kind: .pull(waiter: nil))
        holes += 1
        if holes * 2 > ids.count { compact() }
        guard case .pull(let waiter) = entry.kind else { return nil }
        return waiter
    }

    /// Drops the holes left by removals, keeping registration order.
    private mutating func compact() {
        var kept = 0
        for index in entries.indices where !entries[index].isRemoved {
            ids.swapAt(kept, index)
            entries.swapAt(kept, index)
            kept += 1
        }
        ids.removeLast(ids.count - kept)
        entries.removeLast(entries.count - kept)
        holes = 0
    }

    // MARK: Commits

    /// Records `change` (`.empty` when only statuses changed) as pending for every observer.
    /// - Complexity: O(observers), plus composing with undelivered changes.
    mutating func commit(_ change: CollectionChange) -> Effects {
        var effects = Effects()
        for index in entries.indices where !entries[index].isRemoved {
            Self.record(change, in: &entries[index], into: &effects)
        }
        return effects
    }

    /// The most index entries a composed pending change may hold: past it, an observer that is
    /// not taking its deliveries (a `for await` loop whose body is slow, or one left after a
    /// `break` in top-level code, whose iterator is never destroyed) is owed a reload instead
    /// a diff instead, computed once when it takes its next delivery — so that every later
    /// commit costs it O(1), not a composition as large as what it has not taken.
    static let composedChangeLimit = 256

    private static func record(_ change: CollectionChange, in entry: inout Entry, into effects: inout Effects) {
        switch entry.pending {
        case .none: entry.pending = .change(change)
        case .initial, .rediff: break
        case .change(let earlier):
            if earlier.entryCount + change.entryCount > composedChangeLimit {
                entry.pending = .rediff
            } else {
                entry.pending = .change(earlier.followed(by: change))
            }
        }
        switch entry.kind {
        case .push(let context, let drain):
            if !entry.isScheduled {
                entry.isScheduled = true
                effects.toSchedule.append(Drain(context: context, run: drain))
            }
        case .pull(let waiter):
            if let waiter {
                entry.kind = .pull(waiter: nil)
                effects.toWake.append(waiter)
            }
        }
    }

    // MARK: Deliveries

    /// Takes what observer `id` has not been told yet. A push observer with nothing pending is
    /// marked idle, so the next commit schedules it again.
    mutating func take(_ id: Int, current: any AnyObject & Sendable) -> Take {
        guard let index = index(of: id) else { return .gone }
        return entries[index].takePending(current: current)
    }

    /// Whether observer `id` fell far enough behind to be owed a diff (``Pending/rediff``)
    /// rather than a composed change. For tests.
    func isOwedRediff(_ id: Int) -> Bool {
        guard let index = index(of: id), case .rediff = entries[index].pending else { return false }
        return true
    }

    /// Parks an iterator's continuation until the next commit. Returns `false` — and parks
    /// nothing — when the iterator is gone or already has a delivery pending.
    mutating func park(_ id: Int, _ waiter: Waiter) -> Bool {
        guard let index = index(of: id) else { return false }
        if case .none = entries[index].pending {
            entries[index].kind = .pull(waiter: waiter)
            return true
        }
        return false
    }
}
