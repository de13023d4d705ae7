import Dispatch
import Locking
import Testing

@Suite struct LockTests {
    /// What a lock guards besides its own value: written only with the lock held, so a lock
    /// that did not exclude (or, under Thread Sanitizer, did not order) would lose updates.
    final class Unguarded: @unchecked Sendable {
        var count = 0
    }

    /// Its deinit tells whether the lock released its value.
    final class Tracked: Sendable {
        let onDeinit: @Sendable () -> Void
        init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    @Test func excludesOtherThreads() {
        let lock = Lock(0)
        let unguarded = Unguarded()
        let threads = 8
        let rounds = 20_000
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

    @Test func returnsTheResultAndKeepsChanges() {
        let lock = Lock([1, 2])
        let count = lock.withLock { values -> Int in
            values.append(3)
            return values.count
        }
        #expect(count == 3)
        #expect(lock.withLock { $0 } == [1, 2, 3])
    }

    @Test func releasesTheLockWhenTheBodyThrows() {
        struct Refused: Error {}
        let lock = Lock(0)
        #expect(throws: Refused.self) {
            try lock.withLock { (value: inout Int) throws(Refused) in
                value = 1
                throw Refused()
            }
        }
        // Taken again at once: the throw released it, and the change made before it stays.
        #expect(lock.withLock { $0 } == 1)
    }

    @Test func freesItsValueWithItself() {
        let freed = Lock(false)
        do {
            let lock = Lock(Tracked { freed.withLock { $0 = true } })
            lock.withLock { _ in }
        }
        #expect(freed.withLock { $0 })
    }

    @Test func keepsValuesOfAnyAlignment() {
        let small = Lock(UInt8(7))
        let large = Lock((UInt64(1), SIMD4<Double>(1, 2, 3, 4)))
        #expect(small.withLock { $0 } == 7)
        #expect(large.withLock { $0.1[3] } == 4)
    }
}
