import Foundation
import Testing

@testable import LiveChannels

/// The SDK's one backoff (`Backoff`): what reconnecting and the outbox wait after each failure,
/// and how much of a server's `retryAfter` is honoured — every count and every number safe.
@Suite struct BackoffTests {
    @Test func reconnectingDoublesFromATenthOfASecondUpToFive() {
        let waits = (1...9).map { Backoff.reconnect.delay(afterFailures: $0) }
        #expect(waits == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5, 5])
    }

    @Test func theOutboxDoublesFromHalfASecondUpToThirty() {
        let waits = (1...8).map { Backoff.outbox.delay(afterFailures: $0) }
        #expect(waits == [0.5, 1, 2, 4, 8, 16, 30, 30])
    }

    @Test func anyCountOfFailuresIsSafe() {
        for failures in [Int.min, -1, 0, 1, 17, 1_000, Int.max] {
            let wait = Backoff.outbox.delay(afterFailures: failures)
            #expect(wait >= Backoff.outbox.first && wait <= Backoff.outbox.longest, "\(failures) failures: \(wait)")
        }
    }

    @Test func aServersWaitIsHonouredWithinAnHour() {
        #expect(Backoff.serverWait(2.5) == 2.5)
        #expect(Backoff.serverWait(0) == 0)
        #expect(Backoff.serverWait(-3) == 0)
        #expect(Backoff.serverWait(.nan) == 0)
        #expect(Backoff.serverWait(.infinity) == 0)
        #expect(Backoff.serverWait(1e300) == Backoff.longestServerWait)
        #expect(Backoff.serverWait(7_200) == 3_600)
    }
}
