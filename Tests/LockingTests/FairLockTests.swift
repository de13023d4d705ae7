import Dispatch
import Locking
import Synchronization
import Testing

@Suite struct FairLockTests {
    final class Unguarded: @unchecked Sendable {
        var count = 0
    }

    @Test func excludesOtherThreads() {
        let lock = FairLock(0)
        let unguarded = Unguarded()
        let threads = 6
        let rounds = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds {
                lock.withLock { value in
                    value += 1
                    unguarded.count += 1
                }
            }
        }
        #expect(lock.withLock { $0 } == threads * rounds)
        #expect(lock.withLock { _ in unguarded.count } == threads * rounds)
    }

    @Test func returnsResultsAndRethrows() {
        struct Refused: Error {}
        let lock = FairLock([1])
        #expect(lock.withLock { $0.append(2); return $0.count } == 2)
        #expect(throws: Refused.self) { try lock.withLock { (_: inout [Int]) throws(Refused) in throw Refused() } }
        #expect(lock.withLock { $0 } == [1, 2], "a throwing body keeps what it changed before and releases the lock")
    }

    /// A thread that keeps taking the lock cannot go ahead of one that is waiting: from the
    /// moment the waiter asks, the other holds it at most twice (the hold under way, and a
    /// request it made before the waiter's) before the waiter gets it.
    @Test func withoutPatienceAWaiterIsServedBeforeARepeatedTaker() {
        let lock = FairLock(0, patience: 0)  // the hammer's holds so far
        let stop = Atomic(false)
        let hammer = DispatchGroup()
        DispatchQueue.global().async(group: hammer) {
            while !stop.load(ordering: .relaxed) {
                lock.withLock { $0 += 1 }
            }
        }
        var worst = 0
        for _ in 0..<300 {
            let before = lock.withLock { $0 }
            // Asked while the hammer keeps asking: the holds it got meanwhile.
            let after = lock.withLock { $0 }
            worst = max(worst, after - before)
        }
        stop.store(true, ordering: .relaxed)
        hammer.wait()
        #expect(worst <= 2, "the repeated taker held the lock \(worst) times ahead of a waiter")
    }

    /// With patience, a waiter still gets the lock from a thread that keeps taking it: the
    /// waiter's 300 holds end while the other thread takes the lock as fast as it can.
    @Test func withPatienceAWaiterIsNotStarved() {
        let lock = FairLock(0, patience: 0.0005)
        let stop = Atomic(false)
        let hammer = DispatchGroup()
        DispatchQueue.global().async(group: hammer) {
            while !stop.load(ordering: .relaxed) {
                lock.withLock { $0 += 1 }
            }
        }
        var served = 0
        for _ in 0..<300 { lock.withLock { _ in served += 1 } }
        stop.store(true, ordering: .relaxed)
        hammer.wait()
        #expect(served == 300)
        #expect(lock.withLock { $0 } > 0, "the other thread took the lock meanwhile")
    }
}
