#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif
import Synchronization

/// A value guarded by a lock: the package's general lock, with the shape of the standard
/// library's `Synchronization.Mutex` (`Lock(value)`, `withLock { value in … }`). Beside it,
/// `Locking` has ``FairLock`` (the server engine's lock: no thread waits for it much longer than
/// its patience, 1 ms by default) and ``AtomicValue`` (a word read and written atomically).
///
/// Why not `Mutex` itself: on Linux `Mutex` parks threads with raw futex calls made inside the
/// standard library, which Thread Sanitizer does not see, so `swift test --sanitize=thread`
/// reports every access made under a `Mutex` as a race and can tell nothing about real ones.
/// On Linux (and other pthread platforms without Darwin) this type is instead a *benaphore*: an
/// atomic count of the threads that hold or want the lock, and a POSIX semaphore on which all
/// but the first wait. Thread Sanitizer understands both halves — the count's
/// acquiring/releasing read-modify-writes are compiled into this package (instrumented), and
/// it intercepts `sem_wait`/`sem_post` — and an uncontended `withLock` costs two atomic
/// read-modify-writes, as a `Mutex` does (a `pthread_mutex_t` costs two library calls more).
/// Count, semaphore and value share one allocation, so their addresses never move. On Apple
/// platforms it is a `pthread_mutex_t` (which Thread Sanitizer understands) sharing one
/// allocation with the value: unlike `Mutex`, available on every system the package supports
/// (iOS 16, macOS 13), not only from iOS 18 / macOS 15. Building with `-D LOCKING_PTHREAD`
/// selects that path on Linux too, so it is compiled and tested here. Anywhere else it is a
/// `Mutex`.
///
/// Not recursive: the closure of ``withLock(_:)`` must not take the same lock again (it
/// deadlocks). Not fair (``FairLock`` is). Noncopyable, like `Mutex`: store it in a `let` of a
/// class or capture it; it is freed with its owner.
///
/// Ordered: each lock of `Sources` has a ``LockRank``, and a thread takes a lock only while every
/// lock it holds ranks lower. ``LockRank`` writes the package's lock order down; in debug builds
/// ``LockOrder`` checks every `withLock` against it (release builds check nothing). A lock made
/// without a rank is ``LockRank/unordered``: not checked.
///
/// - Threading: `Sendable` whatever `Value` is: the value only ever enters as `sending` and
///   leaves as a `sending` result, so no two threads can share a non-`Sendable` value through
///   it.
@usableFromInline
package struct Lock<Value>: ~Copyable {
    #if DEBUG
        /// Where the lock stands in the lock order (debug builds only, for ``LockOrder``).
        @usableFromInline let rank: LockRank
    #endif

    #if canImport(Darwin) || LOCKING_PTHREAD
        /// One allocation: the `pthread_mutex_t` at offset 0, the value at ``valueOffset``.
        @usableFromInline let address: UnsafeMutableRawPointer

        @inlinable
        static var valueOffset: Int {
            let end = MemoryLayout<pthread_mutex_t>.stride
            let alignment = MemoryLayout<Value>.alignment
            return (end + alignment - 1) / alignment * alignment
        }

        /// Creates a lock guarding `initialValue`, of rank `rank` in the lock order.
        @inlinable
        package init(_ initialValue: consuming sending Value, rank: LockRank = .unordered) {
            #if DEBUG
                self.rank = rank
            #endif
            address = .allocate(
                byteCount: Self.valueOffset + MemoryLayout<Value>.size,
                alignment: max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<Value>.alignment))
            let mutex = address.bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed")
            (address + Self.valueOffset).bindMemory(to: Value.self, capacity: 1).initialize(to: initialValue)
        }

        @inlinable
        deinit {
            let mutex = address.assumingMemoryBound(to: pthread_mutex_t.self)
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            (address + Self.valueOffset).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
            address.deallocate()
        }

        /// Runs `body` with the lock held and exclusive access to the value; returns its result.
        /// Blocks while another thread holds the lock.
        ///
        /// - Throws: what `body` throws (the lock is released either way).
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            let mutex = address.assumingMemoryBound(to: pthread_mutex_t.self)
            let value = (address + Self.valueOffset).assumingMemoryBound(to: Value.self)
            #if DEBUG
                let outer = LockOrder.willAcquire(rank)
                defer { LockOrder.didRelease(rank, restoring: outer) }
            #endif
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    #elseif canImport(Glibc) || canImport(Musl) || canImport(Android)
        /// One allocation: the count (`Atomic<Int>`) at offset 0, the `sem_t` at
        /// ``semaphoreOffset``, the value at ``valueOffset``.
        @usableFromInline let address: UnsafeMutableRawPointer

        @inlinable static var semaphoreOffset: Int { MemoryLayout<Atomic<Int>>.stride }

        @inlinable
        static var valueOffset: Int {
            let end = semaphoreOffset + MemoryLayout<sem_t>.stride
            let alignment = MemoryLayout<Value>.alignment
            return (end + alignment - 1) / alignment * alignment
        }

        /// Creates a lock guarding `initialValue`, of rank `rank` in the lock order.
        @inlinable
        package init(_ initialValue: consuming sending Value, rank: LockRank = .unordered) {
            #if DEBUG
                self.rank = rank
            #endif
            address = .allocate(
                byteCount: Self.valueOffset + MemoryLayout<Value>.size,
                alignment: max(
                    MemoryLayout<Atomic<Int>>.alignment, MemoryLayout<sem_t>.alignment, MemoryLayout<Value>.alignment))
            address.bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
            let semaphore = (address + Self.semaphoreOffset).bindMemory(to: sem_t.self, capacity: 1)
            semaphore.initialize(to: sem_t())
            let status = sem_init(semaphore, 0, 0)
            precondition(status == 0, "sem_init failed")
            (address + Self.valueOffset).bindMemory(to: Value.self, capacity: 1).initialize(to: initialValue)
        }

        @inlinable
        deinit {
            address.assumingMemoryBound(to: Atomic<Int>.self).deinitialize(count: 1)
            let semaphore = (address + Self.semaphoreOffset).assumingMemoryBound(to: sem_t.self)
            sem_destroy(semaphore)
            semaphore.deinitialize(count: 1)
            (address + Self.valueOffset).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
            address.deallocate()
        }

        /// Runs `body` with the lock held and exclusive access to the value; returns its result.
        /// Blocks while another thread holds the lock.
        ///
        /// Taking the lock adds one to the count (acquiring); a thread that finds it above zero
        /// waits on the semaphore. Releasing subtracts one (releasing) and, when others wait, posts
        /// the semaphore once: exactly one waiter proceeds per release.
        ///
        /// - Throws: what `body` throws (the lock is released either way).
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            let count = address.assumingMemoryBound(to: Atomic<Int>.self)
            let semaphore = (address + Self.semaphoreOffset).assumingMemoryBound(to: sem_t.self)
            let value = (address + Self.valueOffset).assumingMemoryBound(to: Value.self)
            #if DEBUG
                let outer = LockOrder.willAcquire(rank)
                defer { LockOrder.didRelease(rank, restoring: outer) }
            #endif
            if count.pointee.wrappingAdd(1, ordering: .acquiring).oldValue > 0 {
                while sem_wait(semaphore) != 0 {}  // retried when a signal interrupts the wait
            }
            defer {
                if count.pointee.wrappingSubtract(1, ordering: .releasing).oldValue > 1 { sem_post(semaphore) }
            }
            return try body(&value.pointee)
        }
    #else
        @usableFromInline let mutex: Mutex<Value>

        /// Creates a lock guarding `initialValue`, of rank `rank` in the lock order.
        @inlinable
        package init(_ initialValue: consuming sending Value, rank: LockRank = .unordered) {
            #if DEBUG
                self.rank = rank
            #endif
            mutex = Mutex(initialValue)
        }

        /// Runs `body` with the lock held and exclusive access to the value; returns its result.
        /// Blocks while another thread holds the lock.
        ///
        /// - Throws: what `body` throws (the lock is released either way).
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            #if DEBUG
                let outer = LockOrder.willAcquire(rank)
                defer { LockOrder.didRelease(rank, restoring: outer) }
            #endif
            return try mutex.withLock(body)
        }
    #endif
}

// Safe: the value is reached only with the lock held, and crosses threads only as `sending`.
extension Lock: @unchecked Sendable {}
