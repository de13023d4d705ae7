import Locking

/// The one ordered-request chain: runs operations one after another in the order they were
/// submitted, whoever submits them — fire-and-forget calls (`startReading()` then
/// `stopReading()`, a keystroke then a stop) reach the server in the order they were made, and a
/// transport's connects never overlap.
///
/// An operation starts once every operation submitted before it has finished, successfully or
/// not (a failure does not stop the chain).
final class RequestSequence: Sendable {
    /// Guards a wait for the last submitted operation, which the next one runs after. Lock
    /// order: a leaf (see `LockRank`).
    private let tail = Lock<(@Sendable () async -> Void)?>(nil, rank: .leaf)

    /// Submits `operation`; returns its task (awaiting it is optional).
    /// - Complexity: O(1); the operation waits for the one before it only.
    @discardableResult
    func submit<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) -> Task<Result, any Error>
    {
        tail.withLock { tail in
            let previous = tail
            let task = Task {
                await previous?()
                return try await operation()
            }
            tail = { _ = await task.result }
            return task
        }
    }
}
