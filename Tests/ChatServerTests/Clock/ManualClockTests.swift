import ChatServer
import Foundation
import Testing

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
        let calls = Counter()
        clock.onAdvance { calls.increment() }
        clock.advance(by: 1)
        clock.advance(by: 1)
        #expect(calls.value == 2)
    }
}

/// A thread-safe counter for handler tests.
final class Counter: Sendable {
    // Guards the count.
    private let lock = NSLock()
    nonisolated(unsafe) private var count = 0

    func increment() {
        lock.withLock { count += 1 }
    }

    var value: Int { lock.withLock { count } }
}
