import Locking

/// Counts `disconnect()` calls, twice each (see ``ChatClient/disconnect()``).
final class DisconnectCounter: Sendable {
    /// Guards the count, and is held while a disconnect or a reconnect publishes the connection
    /// state: `LockRank.unordered`, as the state's publication takes the live value's lock (and
    /// runs `.synchronous` observers' callbacks). Nothing else takes this lock, and nothing
    /// a callback can call synchronously does, so a callback cannot deadlock on it.
    private let count = Lock(0, rank: .unordered)
    var value: Int { count.withLock { $0 } }

    /// Counts; then runs `publish` under the lock.
    func increment(then publish: () -> Void = {}) {
        count.withLock {
            $0 += 1
            publish()
        }
    }

    /// Runs `publish` under the lock when nothing was counted since `epoch` was read; whether
    /// it did.
    func ifUnchanged(since epoch: Int, _ publish: () -> Void) -> Bool {
        count.withLock { count in
            guard count == epoch else { return false }
            publish()
            return true
        }
    }
}
