import Foundation
import Locking
import Testing

@testable import ChatServer

@Suite struct ManualClockTests {
    @Test func timeMovesOnlyWhenAdvanced() {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 100))
        #expect(clock.now == Date(timeIntervalSince1970: 100))
        clock.advance(by: 5)
        clock.advance(by: -3)
        #expect(clock.now == Date(timeIntervalSince1970: 105))
    }

    @Test func sleepersWakeWhenTheirDeadlinePasses() async throws {
        let clock = ManualClock()
        let start = clock.now
        let sleeper = Task { try await clock.sleep(until: start + 10) }
        await clock.waitForSleepers(1)
        clock.advance(by: 5)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 5)
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
        try await clock.sleep(until: start)
    }

    @Test func advanceRunsTheHandlers() {
        let clock = ManualClock()
        let calls = Lock(0)
        clock.onAdvance { calls.withLock { $0 += 1 } }
        clock.advance(by: 1)
        clock.advance(by: 1)
        #expect(calls.withLock { $0 } == 2)
    }
}
