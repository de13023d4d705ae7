#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A lock that admits threads strictly in the order they asked for it (a ticket lock), guarding
/// a value: for one lock many clients share, where ``Lock`` would let a thread that keeps asking
/// take it again and again ahead of one that has been waiting (``Lock`` lets a newcomer take a
/// lock just released before a waiter wakes up).
///
/// A thread waits for at most the holds of those who asked before it. The price is a hand-off
/// per contended acquisition: the next in line must wake up before anyone else may hold it, so
/// under heavy contention it admits fewer holds per second than ``Lock``.
///
/// - Complexity: uncontended, two short pthread mutex holds per `withLock`; contended, a
///   condition broadcast per release (waiters recheck their ticket).
package final class FairLock<Value>: @unchecked Sendable {
    // Safe: `value` is touched only by the thread whose ticket is being served; tickets are
    // taken and served under `mutex`, which orders one holder's writes before the next one's
    // reads.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let served: UnsafeMutablePointer<pthread_cond_t>
    /// The next ticket to hand out (guarded by `mutex`).
    private var nextTicket = 0
    /// The ticket that may hold the lock now (guarded by `mutex`).
    private var nowServing = 0
    private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        served = .allocate(capacity: 1)
        served.initialize(to: pthread_cond_t())
        precondition(pthread_cond_init(served, nil) == 0, "pthread_cond_init failed")
    }

    deinit {
        pthread_cond_destroy(served)
        served.deinitialize(count: 1)
        served.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, once every thread that asked before has had its turn.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        let ticket = nextTicket
        nextTicket += 1
        while ticket != nowServing { pthread_cond_wait(served, mutex) }
        pthread_mutex_unlock(mutex)
        defer {
            pthread_mutex_lock(mutex)
            nowServing += 1
            let someoneWaits = nextTicket != nowServing
            pthread_mutex_unlock(mutex)
            if someoneWaits { pthread_cond_broadcast(served) }
        }
        return try body(&value)
    }
}
