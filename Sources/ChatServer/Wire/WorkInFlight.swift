/// How many pieces of work are under way, and who waits for none to be: what "returns once
/// every one started has finished" needs (a session's answers, its close frames).
///
/// A value kept under its owner's lock. The continuations ``finish()`` hands back are resumed
/// by the caller after the lock is released. Each operation is O(1) but for handing back the
/// waiters, O(waiters).
struct WorkInFlight {
    /// The pieces started and not yet finished.
    private(set) var count = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// One more piece is under way.
    mutating func start() { count += 1 }

    /// One piece finished: the waiters to resume when it was the last, else none.
    mutating func finish() -> [CheckedContinuation<Void, Never>] {
        assert(count > 0, "a piece of work finished that never started")
        count -= 1
        guard count == 0 else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// Keeps `continuation` until no piece is under way, and returns `true`; returns `false`
    /// when none is now (the caller resumes it).
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard count > 0 else { return false }
        waiters.append(continuation)
        return true
    }
}
