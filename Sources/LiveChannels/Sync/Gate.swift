import Locking

/// A one-way gate: ``wait()`` returns at once once ``open()`` was called, and until then
/// suspends. Thread-safe.
final class Gate: Sendable {
    private struct State: Sendable {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Guards the flag and the suspended waiters. Lock order: a leaf (see `LockRank`).
    private let state = Lock(State(), rank: .leaf)

    /// Whether ``open()`` was called.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate and resumes every waiter. Idempotent.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open.
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
