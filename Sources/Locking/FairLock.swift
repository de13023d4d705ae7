#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A lock that no thread waits for much longer than its `patience`, guarding a value: for one
/// lock many clients share, where ``Lock`` would let a thread that keeps asking take it again
/// and again ahead of one that has been waiting (``Lock`` lets a newcomer take a lock just
/// released before a waiter wakes up).
///
/// While nobody has waited `patience` yet, it behaves like ``Lock``: a released lock goes to
/// whoever takes it first, so a busy thread keeps its pace without a hand-off per hold. Once
/// the longest waiter has waited `patience`, each release hands the lock to the longest
/// waiter, first come first served, until no waiter is that old. With `patience` zero it is
/// strictly first come, first served (a ticket lock).
///
/// So a thread waits at most about `patience` plus the holds of the waiters older than it and
/// the hold under way.
///
/// Ordered as ``Lock`` is: it has a ``LockRank``, checked in debug builds by ``LockOrder``.
///
/// - Complexity: uncontended, two short pthread mutex holds per `withLock`; contended, a
///   condition broadcast per release and a clock read per release and wait.
// @unchecked Sendable: `value` is reached only by the thread holding the lock, and holding is
// decided under `mutex` (see below).
package final class FairLock<Value>: @unchecked Sendable {
    // Safe: `value` is touched only by the thread that holds the lock; holding is decided under
    // `mutex`, which orders one holder's writes before the next one's reads.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    /// How long a waiter waits before releases go to the longest waiter, in nanoseconds.
    private let patience: UInt64
    // Guarded by `mutex`:
    private var isHeld = false
    /// The waiters' tickets and when they began to wait, the longest waiting first.
    private var waiting: [(ticket: Int, since: UInt64)] = []
    private var nextTicket = 0
    /// The waiter the lock was handed to (it holds the lock, not yet awake).
    private var handedTo: Int?
    private var value: Value
    #if DEBUG
        /// Where the lock stands in the lock order (debug builds only, for ``LockOrder``).
        private let rank: LockRank
    #endif

    /// - Parameters:
    ///   - patience: how long, in seconds, a waiter waits before releases go to the longest
    ///     waiter (0: always).
    ///   - rank: the lock's place in the lock order (see ``LockRank``).
    package init(_ value: consuming sending Value, patience: Double = 0.001, rank: LockRank = .unordered) {
        precondition(patience >= 0, "patience is a duration")
        #if DEBUG
            self.rank = rank
        #endif
        self.value = value
        self.patience = UInt64(patience * 1e9)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        precondition(pthread_cond_init(changed, nil) == 0, "pthread_cond_init failed")
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if DEBUG
            let outer = LockOrder.willAcquire(rank)
            defer { LockOrder.didRelease(rank, restoring: outer) }
        #endif
        acquire()
        defer { release() }
        return try body(&value)
    }

    private func acquire() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !isHeld, handedTo == nil {
            isHeld = true
            return
        }
        let ticket = nextTicket
        nextTicket += 1
        waiting.append((ticket, Self.now()))
        while true {
            if handedTo == ticket {
                handedTo = nil
                break
            }
            if !isHeld, handedTo == nil {
                isHeld = true
                break
            }
            pthread_cond_wait(changed, mutex)
        }
        waiting.remove(at: waiting.firstIndex { $0.ticket == ticket }!)
    }

    private func release() {
        pthread_mutex_lock(mutex)
        if let longest = waiting.first, Self.now() &- longest.since >= patience {
            handedTo = longest.ticket  // stays held: the longest waiter takes it over
        } else {
            isHeld = false
        }
        let someoneWaits = !waiting.isEmpty
        pthread_mutex_unlock(mutex)
        if someoneWaits { pthread_cond_broadcast(changed) }
    }

    /// How many threads wait for the lock now (for tests).
    package var waiterCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return waiting.count
    }

    /// Monotonic time in nanoseconds.
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
