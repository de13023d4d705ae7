import Locking

/// Work that failed for want of a connection and should run again once there is one: page
/// loads and live objects whose request failed. Drained after every (re)connect and by
/// `ChatClient.synchronize()`.
///
/// A request can fail on a connection that has already been replaced — it was in flight when
/// the connection dropped, and the reconnect drained this list before the failure arrived. So
/// each retry says in which connection its work started (``connection``, read before sending);
/// a retry of work that started before the current connection runs at once instead of waiting
/// for the next drain.
final class RetryList: Sendable {
    private struct State: Sendable {
        var pending: [@Sendable () async -> Void] = []
        /// Counts the connections made.
        var connection = 0
    }

    /// Guards the pending retries and the connection count. Lock order: a leaf (see `LockRank`).
    private let state = Lock(State(), rank: .leaf)

    /// The current connection's number: read it before sending a request that may need a retry.
    var connection: Int { state.withLock { $0.connection } }

    /// Adds a retry of work that started in connection `startedIn`: it runs once, at the next
    /// drain — or now, if a newer connection has been made since.
    func add(startedIn connection: Int, _ retry: @escaping @Sendable () async -> Void) {
        let runNow = state.withLock { state in
            if connection < state.connection { return true }
            state.pending.append(retry)
            return false
        }
        if runNow { Task { await retry() } }
    }

    /// Records a new connection, then runs every pending retry.
    func connectionEstablished() async {
        state.withLock { $0.connection += 1 }
        await runAll()
    }

    /// Runs every pending retry, all at once, and returns when they have all ended (a retry that
    /// fails again adds itself back for the next drain). Concurrent, so that one retry that
    /// waits long — for events a response must wait for, say — holds up no other.
    func runAll() async {
        let retries = state.withLock { state in
            defer { state.pending.removeAll() }
            return state.pending
        }
        await withTaskGroup(of: Void.self) { group in
            for retry in retries { group.addTask { await retry() } }
        }
    }
}
