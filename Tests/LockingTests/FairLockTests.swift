import Dispatch
import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
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
        #expect(
            lock.withLock {
                $0.append(2); return $0.count
            } == 2)
        #expect(throws: Refused.self) { try lock.withLock { (_: inout [Int]) throws(Refused) in throw Refused() } }
        #expect(lock.withLock { $0 } == [1, 2], "a throwing body keeps what it changed before and releases the lock")
    }

    /// Without patience, waiters are served in the order they asked: eight threads queue one
    /// after another behind a holder (each known to wait before the next asks), and enter in
    /// that order once it releases.
    @Test(.timeLimit(.minutes(1))) func withoutPatienceWaitersAreServedInArrivalOrder() {
        let lock = FairLock([Int](), patience: 0)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Self.startThread {
            lock.withLock { _ in
                held.signal()
                release.wait()
            }
            finished.signal()
        }
        held.wait()
        for number in 0..<8 {
            Self.startThread {
                lock.withLock { $0.append(number) }
                finished.signal()
            }
            while lock.waiterCount < number + 1 { sched_yield() }
        }
        release.signal()
        for _ in 0..<9 { finished.wait() }
        #expect(lock.withLock { $0 } == Array(0..<8))
    }

    /// With patience, a waiter still gets the lock from a thread that keeps taking it: the
    /// waiter's 300 holds end while the other thread takes the lock as fast as it can.
    @Test(.timeLimit(.minutes(1))) func withPatienceAWaiterIsNotStarved() {
        let lock = FairLock(0, patience: 0.0005)
        let stop = Atomic(false)
        let hammer = DispatchSemaphore(value: 0)
        Self.startThread {
            while !stop.load(ordering: .relaxed) {
                lock.withLock { $0 += 1 }
            }
            hammer.signal()
        }
        Self.waitUntilRunning(lock)
        var served = 0
        for _ in 0..<300 { lock.withLock { _ in served += 1 } }
        stop.store(true, ordering: .relaxed)
        hammer.wait()
        // Starved, the loop above would not end (the time limit fails the test).
        #expect(served == 300)
    }

    /// Runs `body` on a thread of its own (not the global queue's, whose few threads the
    /// blocking tests may all hold).
    private static func startThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.start()
    }

    /// Returns once the hammering thread has taken the lock.
    private static func waitUntilRunning(_ lock: FairLock<Int>) {
        while lock.withLock({ $0 }) == 0 { sched_yield() }
    }
}
