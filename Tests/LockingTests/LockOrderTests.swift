import Locking
import Testing

/// The lock-order checker (debug builds): a lock taken while a lock of the same or a higher rank
/// is held is reported — here collected by `LockOrder.violations(during:)`; anywhere else it traps,
/// so the rest of the suite, which takes the package's locks in every way it uses them, running
/// to the end is the check that normal use raises none.
@Suite struct LockOrderTests {
    /// What the checker reports for `violation`: the violation in debug builds, nothing in release.
    private static func expected(_ violations: LockOrderViolation...) -> [LockOrderViolation] {
        LockOrder.isChecking ? violations : []
    }

    @Test func debugBuildsCheck() {
        #if DEBUG
            #expect(LockOrder.isChecking)
        #else
            #expect(!LockOrder.isChecking)
        #endif
    }

    @Test func locksTakenInRankOrderRaiseNothing() {
        let query = Lock(0, rank: .liveQuery)
        let cache = Lock(0, rank: .entityCache)
        let value = Lock(0, rank: .liveValue)
        let leaf = Lock(0, rank: .leaf)
        let violations = LockOrder.violations {
            query.withLock { _ in cache.withLock { _ in value.withLock { _ in leaf.withLock { _ in } } } }
            value.withLock { _ in leaf.withLock { _ in } }
            leaf.withLock { _ in }
        }
        #expect(violations.isEmpty)
    }

    @Test func anInversionIsCaughtWithoutContention() {
        let cache = Lock(0, rank: .entityCache)
        let value = Lock(0, rank: .liveValue)
        let violations = LockOrder.violations {
            value.withLock { _ in cache.withLock { _ in } }
        }
        #expect(violations == Self.expected(LockOrderViolation(acquiring: .entityCache, holding: .liveValue)))
        #expect(
            violations.first.map { "\($0)".contains("rank entityCache while holding one of rank liveValue") } ?? true)
    }

    @Test func nestingTwoLocksOfOneRankIsCaught() {
        let first = Lock(0, rank: .leaf)
        let second = Lock(0, rank: .leaf)
        let violations = LockOrder.violations {
            first.withLock { _ in second.withLock { _ in } }
        }
        #expect(violations == Self.expected(LockOrderViolation(acquiring: .leaf, holding: .leaf)))
    }

    @Test func aFairLockIsCheckedAsALockIs() {
        let core = FairLock(0, rank: .serverCore)
        let writer = Lock(0, rank: .storeWriter)
        let violations = LockOrder.violations {
            core.withLock { _ in writer.withLock { _ in } }
            writer.withLock { _ in core.withLock { _ in } }
        }
        #expect(violations == Self.expected(LockOrderViolation(acquiring: .serverCore, holding: .storeWriter)))
    }

    /// An unordered lock (an observer's gate, a test's own lock) is outside the order: taking it
    /// is never a violation, and what is taken under it is checked against the locks held around
    /// it.
    @Test func unorderedLocksAreOutsideTheOrder() {
        let gate = Lock<Void>((), rank: .unordered)
        let otherGate = Lock<Void>(())
        let cache = Lock(0, rank: .entityCache)
        let value = Lock(0, rank: .liveValue)
        let violations = LockOrder.violations {
            gate.withLock { _ in otherGate.withLock { _ in cache.withLock { _ in } } }
            value.withLock { _ in gate.withLock { _ in cache.withLock { _ in } } }
        }
        #expect(violations == Self.expected(LockOrderViolation(acquiring: .entityCache, holding: .liveValue)))
    }

    @Test func aThrowingBodyReleasesItsRank() {
        struct Refused: Error {}
        let value = Lock(0, rank: .liveValue)
        let cache = Lock(0, rank: .entityCache)
        let violations = LockOrder.violations {
            #expect(throws: Refused.self) { try value.withLock { (_: inout Int) throws(Refused) in throw Refused() } }
            cache.withLock { _ in value.withLock { _ in } }
        }
        #expect(violations.isEmpty)
    }

    @Test(arguments: [
        (LockRank.entityCache, [LockRank.liveQuery], false),
        (.liveValue, [.liveQuery, .entityCache], false),
        (.liveValue, [.derivedValue], false),
        (.derivedValue, [.liveValue], true),
        (.liveQuery, [.entityCache], true),
        (.leaf, [.leaf], true),
        (.atomicWord, [.liveQuery, .leaf], false),
        (.leaf, [.atomicWord], true),
        (.eventMailbox, [.serverConnection, .serverCore], false),
        (.eventMailbox, [.leaf], false),
        (.leaf, [.eventMailbox], true),
        (.atomicWord, [.eventMailbox], false),
        (.serverCore, [.serverConnection], false),
        (.serverConnection, [.serverCore], true),
        (.storeConnection, [.serverCore, .storeWriter], false),
        (.unordered, [.leaf], false),
        (.liveQuery, [.unordered], false),
    ])
    func theRule(acquiring: LockRank, held: [LockRank], isViolation: Bool) {
        #expect((LockOrder.violation(acquiring: acquiring, holding: held) != nil) == isViolation)
    }
}
