#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A lock taken out of order: one of rank `acquiring` while the thread held one of rank
/// `holding`, at or above it (the highest-ranked lock the thread held).
package struct LockOrderViolation: Sendable, Equatable, CustomStringConvertible {
    /// The rank of the lock being taken.
    package let acquiring: LockRank
    /// The highest rank among the locks the thread held.
    package let holding: LockRank

    package init(acquiring: LockRank, holding: LockRank) {
        self.acquiring = acquiring
        self.holding = holding
    }

    package var description: String {
        "lock order violation: taking a lock of rank \(acquiring) while holding one of rank \(holding) (see LockRank)"
    }
}

/// The lock-order checker: in debug builds every ``Lock`` and ``FairLock`` keeps, per thread,
/// the highest rank the thread holds and, before it blocks, checks that its own rank is above it
/// (see ``LockRank``). `withLock` is scoped, so locks are released in the reverse order they were
/// taken: each one restores, on release, the highest rank held before it. A violation traps with
/// a message naming both ranks, before the lock is taken — so an inversion that could deadlock
/// under contention is reported the first time its two locks are taken in the wrong order, on any
/// thread, even without contention.
///
/// Release builds check nothing: `withLock` compiles to what it was without the checker.
@usableFromInline
package enum LockOrder {
    /// Whether acquisitions are checked: in debug builds, on platforms with POSIX threads.
    package static var isChecking: Bool {
        #if DEBUG && (canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android))
            true
        #else
            false
        #endif
    }

    /// The violation that taking a lock of rank `acquiring` is while holding locks of the ranks
    /// `held`, if it is one: when a held lock ranks at or above it. ``LockRank/unordered`` locks
    /// are outside the order: taking one is never a violation, and holding one constrains
    /// nothing. The rule the checker applies.
    package static func violation(acquiring: LockRank, holding held: [LockRank]) -> LockOrderViolation? {
        guard acquiring != .unordered, let highest = held.filter({ $0 != .unordered }).max(), highest >= acquiring
        else { return nil }
        return LockOrderViolation(acquiring: acquiring, holding: highest)
    }

    /// Runs `body` and returns the violations it raised on this thread, which are collected
    /// instead of trapping (for tests of the checker; other threads are unaffected). Empty when
    /// nothing is checked (``isChecking``).
    package static func violations(during body: () throws -> Void) rethrows -> [LockOrderViolation] {
        #if DEBUG && (canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android))
            let record = ThreadRecord.current
            let outer = record.collected
            record.collected = []
            defer { record.collected = outer }
            try body()
            return record.collected ?? []
        #else
            try body()
            return []
        #endif
    }

    /// What ``willAcquire(_:)`` returns while no ordered lock is held.
    @usableFromInline static var nothingHeld: Int { Int.min }

    #if DEBUG && (canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android))
        /// What the checker keeps per thread. Reached only from its own thread: the run-time
        /// exclusivity checks (which would cost more than the bookkeeping) are turned off.
        final class ThreadRecord {
            /// The raw value of the highest rank the thread holds (``nothingHeld``: none).
            @exclusivity(unchecked) var highest = LockOrder.nothingHeld
            /// The violations collected by ``LockOrder/violations(during:)``; `nil`: trap.
            @exclusivity(unchecked) var collected: [LockOrderViolation]?

            private static let key: pthread_key_t = {
                var key = pthread_key_t()
                #if canImport(Darwin)
                    let status = pthread_key_create(&key) { Unmanaged<ThreadRecord>.fromOpaque($0).release() }
                #else
                    let status = pthread_key_create(&key) {
                        $0.map { Unmanaged<ThreadRecord>.fromOpaque($0).release() }
                    }
                #endif
                precondition(status == 0, "pthread_key_create failed")
                return key
            }()

            /// This thread's record, made on first use and released when the thread ends.
            static var current: ThreadRecord {
                if let pointer = pthread_getspecific(key) {
                    return Unmanaged<ThreadRecord>.fromOpaque(pointer).takeUnretainedValue()
                }
                let record = ThreadRecord()
                pthread_setspecific(key, Unmanaged.passRetained(record).toOpaque())
                return record
            }
        }

        /// Checks that a lock of `rank` may be taken now and records it as held; returns the
        /// highest rank held before, which ``didRelease(restoring:)`` restores. Called before the
        /// lock is taken.
        @usableFromInline
        package static func willAcquire(_ rank: LockRank) -> Int {
            guard rank != .unordered else { return nothingHeld }
            let record = ThreadRecord.current
            let highest = record.highest
            if highest >= rank.rawValue {
                let violation = LockOrderViolation(acquiring: rank, holding: LockRank(rawValue: highest)!)
                guard record.collected != nil else { preconditionFailure(violation.description) }
                record.collected?.append(violation)
                return highest
            }
            record.highest = rank.rawValue
            return highest
        }

        /// Records that a lock of `rank` was released: the highest rank held is again `outer`,
        /// what ``willAcquire(_:)`` returned for it.
        @usableFromInline
        package static func didRelease(_ rank: LockRank, restoring outer: Int) {
            guard rank != .unordered else { return }
            ThreadRecord.current.highest = outer
        }
    #else
        @inlinable package static func willAcquire(_ rank: LockRank) -> Int { nothingHeld }
        @inlinable package static func didRelease(_ rank: LockRank, restoring outer: Int) {}
    #endif
}
