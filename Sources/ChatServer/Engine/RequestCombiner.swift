import Locking

/// Runs requests one at a time at the server's lock without a thread waiting for it: a request
/// that finds another being run is queued and its task suspended (or, queued with a callback,
/// no task at all: ``enqueueIfCombining(_:done:)``), and whoever is running requests (the
/// combiner) runs the queued ones too before it returns to its own caller.
///
/// The server's lock (``ServerEngine/core``) is a thread lock. With many requests in flight,
/// every thread of Swift's cooperative pool (one per core) could be inside it or blocked waiting
/// for it, each hand-off a thread sleep and wake-up, and the work that does not need the lock
/// (a client applying its events) would get a thread only between them. Here one task runs the
/// requests back to back; the others cost no thread while they wait.
///
/// A combiner runs at most ``turnsPerCombiner`` requests of others, then passes the role to the
/// oldest one waiting (its own caller waits no longer than that). Requests run in the order they
/// arrived.
///
/// - Complexity: uncontended, two short lock holds around the request; contended, one
///   suspension and one resumption per queued request.
final class RequestCombiner<Outcome: Sendable>: Sendable {
    typealias Work = @Sendable () -> Outcome

    /// What a queued request is resumed with: its outcome, or the combiner's role.
    private enum Resumption: Sendable {
        case done(Outcome)
        case combine
    }

    /// Who waits for a queued request: a suspended task, or a callback (no task at all).
    private enum Waiter: Sendable {
        case task(UnsafeContinuation<Resumption, Never>)
        case callback(@Sendable (Outcome) -> Void)
    }

    private struct Queued: Sendable {
        var work: Work
        var waiter: Waiter
    }

    private struct State: Sendable {
        var isCombining = false
        /// The queued requests, oldest first from `first` on.
        var queue: [Queued] = []
        var first = 0

        mutating func takeOldest() -> Queued? {
            guard first < queue.count else {
                queue.removeAll(keepingCapacity: true)
                first = 0
                return nil
            }
            let oldest = queue[first]
            first += 1
            if first >= 64, first * 2 >= queue.count {
                queue.removeFirst(first)
                first = 0
            }
            return oldest
        }
    }

    /// How many queued requests a combiner runs before it passes the role on.
    static var turnsPerCombiner: Int { 64 }

    /// Lock order: a leaf (see `LockRank`): nothing is taken under it.
    private let state = Lock(State(), rank: .leaf)

    /// Becomes the combiner if no request runs now: the caller then runs its request itself and
    /// calls ``finishCombining()`` right after (the fast path: nothing is allocated). `false`:
    /// use ``run(_:)``.
    func tryCombining() -> Bool {
        state.withLock { state in
            guard state.isCombining else {
                state.isCombining = true
                return true
            }
            return false
        }
    }

    /// Runs `work` when it is its turn (on this task, or on the combiner's) and returns what it
    /// returned.
    func run(_ work: @escaping Work) async -> Outcome {
        if tryCombining() { return combine(starting: work) }
        let resumption = await withUnsafeContinuation { (continuation: UnsafeContinuation<Resumption, Never>) in
            let combinesNow = state.withLock { state -> Bool in
                guard state.isCombining else {
                    state.isCombining = true
                    return true
                }
                state.queue.append(Queued(work: work, waiter: .task(continuation)))
                return false
            }
            if combinesNow { continuation.resume(returning: .combine) }
        }
        switch resumption {
        case .done(let outcome): return outcome
        case .combine: return combine(starting: work)
        }
    }

    /// Queues `work` behind the request running now, if one runs: whoever combines runs it in
    /// its turn and calls `done` with what it returned, on its own thread (no task waits for
    /// it). `false` — nothing queued — when no request runs now: then run it with ``run(_:)``
    /// or ``tryCombining()``.
    ///
    /// `done` must not block: it runs between the queue's requests.
    /// - Complexity: one short lock hold.
    func enqueueIfCombining(_ work: @escaping Work, done: @escaping @Sendable (Outcome) -> Void) -> Bool {
        state.withLock { state in
            guard state.isCombining else { return false }
            state.queue.append(Queued(work: work, waiter: .callback(done)))
            return true
        }
    }

    /// Runs `own`, then queued requests (resuming each with its outcome) until none is left or
    /// ``turnsPerCombiner`` ran; then ends combining, or hands the role to the oldest waiter.
    private func combine(starting own: Work) -> Outcome {
        let outcome = own()
        finishCombining()
        return outcome
    }

    /// Ends the combiner's own request (after ``tryCombining()``, or in ``run(_:)``): runs the
    /// requests queued meanwhile (resuming each with its outcome) until none is left — combining
    /// ends — or ``turnsPerCombiner`` ran: then the oldest waiter takes the role.
    func finishCombining() {
        var turns = 0
        while true {
            let next = state.withLock { state -> Queued? in
                guard let next = state.takeOldest() else {
                    state.isCombining = false
                    return nil
                }
                return next
            }
            guard let next else { return }
            if turns == Self.turnsPerCombiner {
                // Enough for this caller: the oldest waiter runs its own request and combines
                // (a callback has no task of its own: one is made to combine on).
                switch next.waiter {
                case .task(let continuation):
                    continuation.resume(returning: .combine)
                case .callback(let done):
                    Task.detached {
                        done(next.work())
                        self.finishCombining()
                    }
                }
                return
            }
            turns += 1
            let outcome = next.work()
            switch next.waiter {
            case .task(let continuation): continuation.resume(returning: .done(outcome))
            case .callback(let done): done(outcome)
            }
        }
    }
}
