import ChatAPI
import Foundation
import Locking

/// The callers of one node waiting for their entries of the change log to apply here, by the
/// entry's `ref`. Each is answered once: with its entry's outcome (``complete(_:)``), a failure
/// (``fail(_:with:)``, ``failAll(with:)``), or `unavailable` once ``timeout`` has passed on the
/// engine's clock — one sleeping task for all of them, armed for the earliest deadline, never a
/// task per entry.
///
/// - Threading: thread-safe. Lock order: a leaf.
final class EntryWaiters: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<ChangeOutcome, any Error>
        var deadline: Date
    }

    private struct State {
        var nextRef: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        /// The deadline the timer sleeps until (`nil`: no timer).
        var timer: Date?
        var closed = false
    }

    private let clock: any ServerClock
    /// How long a caller waits for its entry, in seconds.
    let timeout: TimeInterval
    private let state = Lock(State(), rank: .leaf)

    init(clock: any ServerClock, timeout: TimeInterval) {
        self.clock = clock
        self.timeout = timeout
    }

    /// Whether nobody waits.
    var isEmpty: Bool { state.withLock { $0.waiters.isEmpty } }

    /// A new ref for an entry a caller will wait on (never 0: an entry nobody waits for).
    func newRef() -> UInt64 {
        state.withLock { state in
            defer { state.nextRef += 1 }
            return state.nextRef
        }
    }

    /// Waits for the outcome of the entry `ref`; `start` runs once the waiter is registered
    /// (it queues the entry) and says whether the entry was queued.
    ///
    /// - Throws: the entry's error; `unavailable` when it was not queued (the node is closed),
    ///   failed, or did not apply within ``timeout`` (it may still apply later).
    func wait(for ref: UInt64, start: () -> Bool) async throws(ChatError) -> ChangeOutcome {
        do {
            return try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ChangeOutcome, any Error>) in
                let deadline = clock.now + timeout
                let (registered, armTimer) = state.withLock { state -> (Bool, Bool) in
                    guard !state.closed else { return (false, false) }
                    state.waiters[ref] = Waiter(continuation: continuation, deadline: deadline)
                    guard state.timer.map({ deadline < $0 }) ?? true else { return (true, false) }
                    state.timer = deadline
                    return (true, true)
                }
                guard registered, start() else {
                    take([ref]).first?.resume(throwing: ChatError.unavailable("the server is closed"))
                    if !registered { continuation.resume(throwing: ChatError.unavailable("the server is closed")) }
                    return
                }
                if armTimer { arm(until: deadline) }
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// Answers the waiters of the entries that applied.
    func complete(_ outcomes: [(UInt64, Result<ChangeOutcome, ChatError>)]) {
        guard !outcomes.isEmpty else { return }
        let resumed = state.withLock { state in
            outcomes.compactMap { ref, result in state.waiters.removeValue(forKey: ref).map { ($0, result) } }
        }
        for (waiter, result) in resumed { waiter.continuation.resume(with: result.mapError { $0 as any Error }) }
    }

    /// Fails the waiters of `refs` (those still waiting) with `error`.
    func fail(_ refs: [UInt64], with error: ChatError) {
        for continuation in take(refs) { continuation.resume(throwing: error) }
    }

    /// Fails every waiter with `error` and refuses new ones: the node is closing.
    func failAll(with error: ChatError) {
        let all = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in all { continuation.resume(throwing: error) }
    }

    private func take(_ refs: [UInt64]) -> [CheckedContinuation<ChangeOutcome, any Error>] {
        state.withLock { state in refs.compactMap { state.waiters.removeValue(forKey: $0)?.continuation } }
    }

    /// Sleeps until `deadline` on the clock, fails the waiters past theirs, and re-arms for the
    /// earliest one left.
    private func arm(until deadline: Date) {
        Task { [weak self, clock] in
            try? await clock.sleep(until: deadline)
            self?.expire(armedFor: deadline)
        }
    }

    private func expire(armedFor deadline: Date) {
        let now = clock.now
        let (expired, next) = state.withLock { state -> ([CheckedContinuation<ChangeOutcome, any Error>], Date?) in
            // A timer armed earlier than this one took over: it expires what is due.
            guard state.timer == deadline else { return ([], nil) }
            let due = state.waiters.filter { $0.value.deadline <= now }
            for ref in due.keys { state.waiters[ref] = nil }
            state.timer = state.closed ? nil : state.waiters.values.map(\.deadline).min()
            return (due.values.map(\.continuation), state.timer)
        }
        let error = ChatError.unavailable("the change was not applied within \(Int(timeout)) s")
        for continuation in expired { continuation.resume(throwing: error) }
        if let next { arm(until: next) }
    }
}
