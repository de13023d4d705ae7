import Foundation
import Testing

@testable import ChatServer

@Suite struct TokenBucketTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func burstsToItsCapacityThenRefillsAtItsRate() {
        var bucket = TokenBucket(rate: 10, capacity: 20, now: start)
        for _ in 0..<20 { #expect(bucket.take(now: start) == nil) }
        let wait = bucket.take(now: start)
        #expect(
            wait.map { abs($0 - 0.1) < 1e-9 } == true,
            "one token comes in a tenth of a second: \(String(describing: wait))")
        #expect(bucket.take(now: start + 0.05) == 0.05, "half a token is not a token")
        #expect(bucket.take(now: start + 0.0999) == 0.001, "the wait rounds up to the millisecond")
        #expect(bucket.take(now: start + 0.1) == nil)
        #expect(bucket.take(now: start + 0.1) != nil)
        // A long pause refills to the capacity, not beyond.
        for _ in 0..<20 { #expect(bucket.take(now: start + 100) == nil) }
        #expect(bucket.take(now: start + 100) != nil)
    }

    @Test func aClockGoingBackRefillsNothingAndSpendCanGoIntoDebt() {
        var bucket = TokenBucket(rate: 1, capacity: 1, now: start)
        #expect(bucket.take(now: start) == nil)
        #expect(bucket.take(now: start - 50) != nil)
        bucket.spend(now: start)
        let wait = bucket.wait(now: start)
        #expect(wait.map { abs($0 - 2) < 1e-9 } == true, "one token owed: two seconds to the next")
        let fullEarly = bucket.isFull(now: start + 1.5)
        let fullLater = bucket.isFull(now: start + 2)
        #expect(!fullEarly)
        #expect(fullLater)
    }
}
