import Foundation
import Locking
import Testing

@testable import LiveChannels

@Suite struct RetryListTests {
    /// A retry that waits at a gate, telling when it starts and whether it ended.
    final class Probe: Sendable {
        let gate = Gate()
        /// Opened by the retry when it starts.
        private let started = Gate()
        private let state = Lock(false)

        var ended: Bool { state.withLock { $0 } }

        func run() async {
            started.open()
            await gate.wait()
            state.withLock { $0 = true }
        }

        /// Returns once the retry has started (the suite's time limit bounds it): woken by the
        /// retry itself, not by spinning, which a busy machine could stretch past the limit.
        func waitUntilStarted() async {
            await started.wait()
        }
    }

    /// Calls `runAll` while `probe`'s retry runs, lets the scheduler turn a thousand times (a
    /// wrong `runAll` returns meanwhile), then lets the retry end; whether `runAll` returned only
    /// after it.
    static func runAllEndsAfter(_ probe: Probe, on list: RetryList) async -> Bool {
        let synchronize = Task {
            await list.runAll()
            return probe.ended
        }
        for _ in 0..<1_000 { await Task.yield() }
        probe.gate.open()
        return await synchronize.value
    }

    /// A reconnect takes the pending retry and starts it; a `synchronize()` (`runAll`) called
    /// meanwhile must still wait for it, not return because nothing is pending any more.
    @Test(.timeLimit(.minutes(1))) func runAllWaitsForTheRetriesAReconnectStarted() async throws {
        let list = RetryList()
        let probe = Probe()
        list.add(startedIn: 0) { await probe.run() }
        let reconnect = Task { await list.connectionEstablished() }
        await probe.waitUntilStarted()
        #expect(await Self.runAllEndsAfter(probe, on: list), "runAll returned before the running retry ended")
        await reconnect.value
    }

    /// A retry of work that started on an older connection runs at once; `runAll` waits for it.
    @Test(.timeLimit(.minutes(1))) func runAllWaitsForARetryStartedAtOnce() async throws {
        let list = RetryList()
        await list.connectionEstablished()
        let probe = Probe()
        list.add(startedIn: 0) { await probe.run() }
        await probe.waitUntilStarted()
        #expect(await Self.runAllEndsAfter(probe, on: list), "runAll returned before the retry started at once ended")
    }

    /// A retry that fails again adds itself back: it waits for the next drain, and the drain
    /// that ran it does not wait for that next one.
    @Test(.timeLimit(.minutes(1))) func aRetryThatFailsAgainWaitsForTheNextDrain() async {
        let list = RetryList()
        let runs = Lock(0)
        @Sendable func attempt() async {
            let number = runs.withLock { count -> Int in
                count += 1
                return count
            }
            if number == 1 { list.add(startedIn: list.connection) { await attempt() } }
        }
        list.add(startedIn: 0) { await attempt() }
        await list.connectionEstablished()
        #expect(runs.withLock { $0 } == 1)
        await list.runAll()
        #expect(runs.withLock { $0 } == 2)
        await list.runAll()
        #expect(runs.withLock { $0 } == 2)
    }
}
