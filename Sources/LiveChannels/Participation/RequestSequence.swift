import Locking

/// Runs operations one after another in the order they were submitted, whoever submits them,
/// so that fire-and-forget calls (`startReading()` then `stopReading()`) reach the server in
/// the order they were made.
final class RequestSequence: Sendable {
    /// Guards the last submitted operation, which the next one waits for. Lock order: a leaf
    /// (see `LockRank`).
    private let tail = Lock<Task<Void, any Error>?>(nil, rank: .leaf)

    /// Submits `operation`: it starts once every operation submitted before it has finished
    /// (successfully or not). Returns its task; awaiting it is optional.
    @discardableResult
    func submit(_ operation: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        tail.withLock { tail in
            let previous = tail
            let task = Task {
                _ = await previous?.result
                try await operation()
            }
            tail = task
            return task
        }
    }
}
