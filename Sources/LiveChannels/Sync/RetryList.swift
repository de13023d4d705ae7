import Synchronization

/// Work that failed for want of a connection and should run again once there is one: page
/// loads and live objects whose request failed. Drained after every (re)connect and by
/// `ChatClient.synchronize()`.
final class RetryList: Sendable {
    /// Guards the pending retries.
    private let pending = Mutex<[@Sendable () async -> Void]>([])

    /// Adds a retry; it runs once, at the next drain.
    func add(_ retry: @escaping @Sendable () async -> Void) {
        pending.withLock { $0.append(retry) }
    }

    /// Runs every pending retry, one after another (a retry that fails again adds itself
    /// back for the next drain).
    func runAll() async {
        let retries = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for retry in retries { await retry() }
    }
}
