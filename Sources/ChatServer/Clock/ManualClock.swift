import Foundation
import Locking

/// A clock that moves only when told to: the test clock.
///
/// `advance(by:)` moves time forward, wakes every sleeper whose deadline has passed, then runs
/// the advance handlers (the server uses one to expire typing indicators). Sleepers can be
/// counted and awaited, so a test can wait until a delayed request is really parked before it
/// advances time: no wall-clock sleeps.
///
/// - Threading: all members are thread-safe.
public final class ManualClock: ServerClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextSleeperId: UInt64 = 0
        var handlers: [@Sendable () -> Void] = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Guards the current time, the parked sleepers, the advance handlers and the tasks waiting
    /// for a number of sleepers. Lock order: a leaf, read under the engine's lock (see
    /// `LockRank`); sleepers and handlers run after it is released.
    private let state: Lock<State>

    /// Creates a clock reading `start` (by default 2026-01-01T00:00:00Z).
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Lock(State(now: start), rank: .leaf)
    }

    public var now: Date { Self.wireExact(state.withLock { $0.now }) }

    /// `false`: the server expires what is due at every ``advance(by:)`` (an advance handler).
    public var needsWakeUps: Bool { false }

    /// The number of tasks currently suspended in `sleep(until:)`.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward by `seconds` (ignored if not positive), resumes the sleepers whose
    /// deadline has passed, then runs the advance handlers.
    public func advance(by seconds: TimeInterval) {
        let (woken, handlers) = state.withLock { state in
            if seconds > 0 { state.now += seconds }
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return (due.values.map(\.continuation), state.handlers)
        }
        for continuation in woken { continuation.resume() }
        for handler in handlers { handler() }
    }

    /// Suspends until the clock is advanced to `deadline` or beyond (returns at once if it is
    /// there already). Not cancellable: it never throws.
    public func sleep(until deadline: Date) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: [CheckedContinuation<Void, Never>]? = state.withLock { state in
                guard deadline > state.now else { return nil }
                state.sleepers[state.nextSleeperId] = Sleeper(
                    deadline: deadline, continuation: continuation)
                state.nextSleeperId += 1
                let count = state.sleepers.count
                let satisfied = state.sleeperWaiters.filter { $0.count <= count }
                state.sleeperWaiters.removeAll { $0.count <= count }
                return satisfied.map(\.continuation)
            }
            if let ready {
                for waiter in ready { waiter.resume() }
            } else {
                continuation.resume()
            }
        }
    }

    /// Returns once at least `count` tasks are suspended in `sleep(until:)`.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    public func onAdvance(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handlers.append(handler) }
    }
}
