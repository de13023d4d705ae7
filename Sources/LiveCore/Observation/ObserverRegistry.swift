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
    }

    /// Push observers are drained by a job; pull observers (async iterators) take deliveries
    /// themselves and may park a continuation to be woken by the next commit.
    enum Kind: Sendable {
        case push(context: DeliveryContext, drain: @Sendable () -> Void)
        case pull(waiter: CheckedContinuation<Void, Never>?)
    }

    struct Entry: Sendable {
        var pending: Pending = .initial
        /// Push observers: a drain is queued or running.
        var isScheduled = false
        var kind: Kind

        /// Takes the pending delivery in place (no copy of the entry); with nothing pending,
        /// marks a push observer idle.
        mutating func takePending() -> Take {
            let taken = pending
            switch taken {
            case .none:
                isScheduled = false
                return .upToDate
            case .initial:
                pending = .none
                return .deliver(nil)
            case .change(let change):
                pending = .none
                return .deliver(change)
            }
        }
    }

    /// What the owner must do after a commit, outside the lock.
    struct Effects: Sendable {
        /// Drains to run, each in its context (each observer was idle).
        var toSchedule: [(context: DeliveryContext, drain: @Sendable () -> Void)] = []
        /// Parked iterators to wake.
        var toWake: [CheckedContinuation<Void, Never>] = []
    }

    /// The outcome of taking an observer's pending delivery.
    enum Take: Sendable {
        /// The observer is gone.
        case gone
        /// Nothing is pending (a push observer is then marked idle).
        case upToDate
        /// Deliver the current state with this change (`nil`: the first delivery).
        case deliver(CollectionChange?)
    }

    private var entries: [Int: Entry] = [:]
    private var nextID = 0

    /// The number of registered observers and iterators.
    var observerCount: Int { entries.count }

    /// Whether no observer or iterator is registered.
    var isEmpty: Bool { entries.isEmpty }

    /// The id the next registration will get.
    var upcomingID: Int { nextID }

    // MARK: Registration

    /// Registers a push observer. Its first delivery is due at once: the caller must schedule
    /// `drain` in `context`.
    mutating func addObserver(context: DeliveryContext, drain: @escaping @Sendable () -> Void) -> Int {
        let id = nextID
        nextID += 1
        entries[id] = Entry(pending: .initial, isScheduled: true, kind: .push(context: context, drain: drain))
        return id
    }

    /// Registers a pull observer (an async iterator); its first delivery is pending.
    mutating func addIterator() -> Int {
        let id = nextID
        nextID += 1
        entries[id] = Entry(pending: .initial, kind: .pull(waiter: nil))
        return id
    }

    /// Removes an observer; returns a parked iterator's continuation, to wake.
    mutating func remove(_ id: Int) -> CheckedContinuation<Void, Never>? {
        guard let entry = entries.removeValue(forKey: id), case .pull(let waiter) = entry.kind else {
            return nil
        }
        return waiter
    }

    // MARK: Commits

    /// Records `change` (`.empty` when only statuses changed) as pending for every observer.
    /// - Complexity: O(observers), plus composing with undelivered changes.
    mutating func commit(_ change: CollectionChange) -> Effects {
        var effects = Effects()
        // Mutate entries in place through their indices: writing back through the key while
        // iterating would copy the whole table once per observer.
        var index = entries.startIndex
        while index != entries.endIndex {
            Self.record(change, in: &entries.values[index], into: &effects)
            entries.formIndex(after: &index)
        }
        return effects
    }

    private static func record(_ change: CollectionChange, in entry: inout Entry, into effects: inout Effects) {
        switch entry.pending {
        case .none: entry.pending = .change(change)
        case .initial: break
        case .change(let earlier): entry.pending = .change(earlier.followed(by: change))
        }
        switch entry.kind {
        case .push(let context, let drain):
            if !entry.isScheduled {
                entry.isScheduled = true
                effects.toSchedule.append((context, drain))
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
    mutating func take(_ id: Int) -> Take {
        guard let index = entries.index(forKey: id) else { return .gone }
        return entries.values[index].takePending()
    }

    /// Parks an iterator's continuation until the next commit. Returns `false` — and parks
    /// nothing — when the iterator is gone or already has a delivery pending.
    mutating func park(_ id: Int, _ waiter: CheckedContinuation<Void, Never>) -> Bool {
        guard let index = entries.index(forKey: id) else { return false }
        if case .none = entries.values[index].pending {
            entries.values[index].kind = .pull(waiter: waiter)
            return true
        }
        return false
    }
}
