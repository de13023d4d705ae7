#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A lock taken out of order: one of rank `acquiring` while the thread held locks of the ranks
/// `held` (outermost first), at least one of which ranks at or above it.
package struct LockOrderViolation: Sendable, Equatable, CustomStringConvertible {
    /// The rank of the lock being taken.
    package let acquiring: LockRank
    /// The ranks of the locks the thread held, outermost first (unordered ones left out).
    package let held: [LockRank]

    package init(acquiring: LockRank, held: [LockRank]) {
        self.acquiring = acquiring
        self.held = held
    }

    package var description: String {
        let held = held.map { "\($0)" }.joined(separator: ", ")
        return "lock order violation: taking a lock of rank \(acquiring) while holding [\(held)] (see LockRank)"
    }
}

/// The lock-order checker: in debug builds every ``Lock`` and ``FairLock`` records the ranks
/// its thread holds (a thread-local stack) and, before it blocks, checks that each rank held is
/// below its own (see ``LockRank``). A violation traps with a message naming the ranks, before
/// the lock is taken — so an inversion that could deadlock under contention is reported the first
/// time its two locks are taken in the wrong order, on any thread, even without contention.
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
    /// nothing.
    package static func violation(acquiring: LockRank, holding held: [LockRank]) -> LockOrderViolation? {
        let held = held.filter { $0 != .unordered }
        guard acquiring != .unordered, held.contains(where: { $0 >= acquiring }) else { return nil }
        return LockOrderViolation(acquiring: acquiring, held: held)
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

    #if DEBUG && (canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android))
        /// What the checker keeps per thread.
        final class ThreadRecord {
            /// The ranks of the locks the thread holds, outermost first (unordered ones left out).
            var held: [LockRank] = []
            /// The violations collected by ``LockOrder/violations(during:)``; `nil`: trap.
            var collected: [LockOrderViolation]?

            private static let key: pthread_key_t = {
                var key = pthread_key_t()
                #if canImport(Darwin)
                    let status = pthread_key_create(&key) { Unmanaged<ThreadRecord>.fromOpaque($0).release() }
                #else
                    let status = pthread_key_create(&key) { $0.map { Unmanaged<ThreadRecord>.fromOpaque($0).release() } }
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

        /// Checks that a lock of `rank` may be taken now, then records it as held. Called before
        /// the lock is taken.
        @usableFromInline
        package static func willAcquire(_ rank: LockRank) {
            guard rank != .unordered else { return }
            let record = ThreadRecord.current
            if let violation = violation(acquiring: rank, holding: record.held) {
                guard record.collected != nil else { preconditionFailure(violation.description) }
                record.collected?.append(violation)
            }
            record.held.append(rank)
        }

        /// Records that the innermost lock, of `rank`, was released.
        @usableFromInline
        package static func didRelease(_ rank: LockRank) {
            guard rank != .unordered else { return }
            let record = ThreadRecord.current
            precondition(record.held.last == rank, "a \(rank) lock released while it was not the innermost held")
            record.held.removeLast()
        }
    #else
        @inlinable package static func willAcquire(_ rank: LockRank) {}
        @inlinable package static func didRelease(_ rank: LockRank) {}
    #endif
}
