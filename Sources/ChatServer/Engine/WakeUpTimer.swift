import Foundation
import Locking

/// Wakes the server at its next deadline — a typing indicator's expiry, a mute's or a rate
/// limit's end, a held event's release — so that what expires is told without other traffic.
///
/// One sleeping task at a time, for the earliest deadline armed: arming a later deadline than
/// the one armed does nothing (the wake-up then computes the next one), so renewing a typing
/// indicator costs a comparison. Used only with a clock whose time flows by itself
/// (``ServerClock/needsWakeUps``).
///
/// - Threading: every member is thread-safe.
final class WakeUpTimer: Sendable {
    private struct State {
        var armed: Date?
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    /// Guards the armed deadline and its task.
    /// Lock order: a leaf (see `LockRank`).
    private let state = Lock(State(), rank: .leaf)
    private let clock: any ServerClock
    /// Expires what is due and returns the next deadline, if any.
    private let wake: @Sendable () -> Date?

    init(clock: any ServerClock, wake: @escaping @Sendable () -> Date?) {
        self.clock = clock
        self.wake = wake
    }

    /// Wakes the server at `deadline`, unless a wake-up at or before it is armed. A deadline
    /// that is not a finite date is never armed (it would wake the server in a loop).
    func arm(at deadline: Date) {
        guard deadline.timeIntervalSinceReferenceDate.isFinite else { return }
        state.withLock { state in
            guard !state.isCancelled, state.armed.map({ deadline < $0 }) ?? true else { return }
            state.task?.cancel()
            state.armed = deadline
            state.task = Task { [clock, weak self] in
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return  // replaced by an earlier deadline, or cancelled
                }
                self?.fire(deadline)
            }
        }
    }

    /// Stops for good (the server closed).
    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            state.task?.cancel()
            state.task = nil
            state.armed = nil
        }
    }

    private func fire(_ deadline: Date) {
        let isCurrent = state.withLock { state -> Bool in
            guard state.armed == deadline else { return false }
            state.armed = nil
            state.task = nil
            return true
        }
        guard isCurrent, let next = wake() else { return }
        arm(at: next)
    }
}
