import Foundation
import Testing

@testable import ChatServer

/// The system clock sleeps towards any deadline without a conversion that can trap: a mute
/// "until lifted" (`distantFuture`) or a period stored by an older version (1e11 s) is armed as
/// a wake-up at every start, and must neither end the process nor wake it in a loop.
@Suite struct SystemClockTests {
    @Test func aWaitIsHandedToTheSystemADayAtATimeAtMost() {
        #expect(SystemClock.nanoseconds(for: 0.5) == 500_000_000)
        #expect(SystemClock.nanoseconds(for: 86_400) == 86_400_000_000_000)
        for seconds in [86_401, 1.85e10, 1e11, 1e300, Double.greatestFiniteMagnitude, .infinity] {
            #expect(SystemClock.nanoseconds(for: seconds) == 86_400_000_000_000, "\(seconds)")
        }
        #expect(SystemClock.nanoseconds(for: 1e-12) == 1_000)
    }

    @Test(arguments: [Date.distantFuture, Date(timeIntervalSinceNow: 1e11), Date(timeIntervalSinceNow: 1e300)])
    func sleepingTowardsAFarDeadlineWaitsUntilCancelled(_ deadline: Date) async {
        let sleeper = Task { try await SystemClock().sleep(until: deadline) }
        try? await Task.sleep(for: .milliseconds(20))
        sleeper.cancel()
        let outcome = await sleeper.result
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    @Test func aDeadlineInThePastOrNotANumberReturnsAtOnce() async throws {
        try await SystemClock().sleep(until: .distantPast)
        try await SystemClock().sleep(until: Date(timeIntervalSinceReferenceDate: .nan))
    }
}
