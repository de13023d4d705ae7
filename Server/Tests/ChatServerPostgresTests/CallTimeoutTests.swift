import Testing

@testable import ChatServerPostgres

/// Every database call of the store is bounded by `PostgresServerDatabase.result(of:within:)`:
/// a call that answers in time is never reported as timed out (its timer, woken as the call
/// answers, must not take the answer's place), and one that does not answer is reported once
/// its time is up.
@Suite struct CallTimeoutTests {
    struct TimedOut: Error {}

    @Test func aCallThatAnswersIsNeverReportedAsTimedOut() async throws {
        // Many calls that answer at once: each one's timer is cancelled as it answers.
        for round in 0..<5_000 {
            let work = Task<Void, any Error> { if round % 2 == 0 { await Task.yield() } }
            try await PostgresServerDatabase.result(of: work, within: .seconds(30)) { TimedOut() }
        }
    }

    @Test func aCallThatDoesNotAnswerIsReportedWhenItsTimeIsUp() async throws {
        let work = Task<Void, any Error> { try await Task.sleep(for: .seconds(60)) }
        await #expect(throws: TimedOut.self) {
            try await PostgresServerDatabase.result(of: work, within: .milliseconds(50)) { TimedOut() }
        }
        #expect(work.isCancelled, "the call is cancelled")
    }
}
