import Locking

/// Work a caller waits for only so long: the one way the server bounds a wait on something
/// outside it — a read of the SQLite file, a PostgreSQL call — even when that work ignores
/// cancellation (a query on a connection the database dropped can wait for good): the caller is
/// answered when the time is up, and the work's late result is dropped.
public enum TimeLimit {
    /// The result of `work`, or `nil` when it has not finished within `limit`: `work` is then
    /// cancelled, and left to end when it does.
    ///
    /// A result that comes in time is always the answer: the timer, stopped as it comes, never
    /// answers in its place (whichever of the two takes the caller's continuation first answers).
    ///
    /// - Complexity: two tasks besides `work`, each ended once the caller is answered.
    public static func result<Value: Sendable>(
        of work: Task<Value, any Error>, within limit: Duration
    ) async -> Result<Value, any Error>? {
        let answer = Lock<CheckedContinuation<Result<Value, any Error>?, Never>?>(nil, rank: .leaf)
        let take: @Sendable () -> CheckedContinuation<Result<Value, any Error>?, Never>? = {
            answer.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>?, Never>) in
            answer.withLock { $0 = continuation }
            let timer = Task {
                do { try await Task.sleep(for: limit) } catch { return }
                guard let continuation = take() else { return }
                work.cancel()
                continuation.resume(returning: nil)
            }
            Task {
                let result = await work.result
                // Taken before the timer is stopped: a cancelled timer answers nothing.
                let continuation = take()
                timer.cancel()
                continuation?.resume(returning: result)
            }
        }
    }

    /// `body`'s result, or `nil` when it has not finished within `limit` (it is then cancelled
    /// and its result, whenever it comes, dropped).
    public static func result<Value: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> Value
    ) async -> Result<Value, any Error>? {
        await result(of: Task { try await body() }, within: limit)
    }
}
