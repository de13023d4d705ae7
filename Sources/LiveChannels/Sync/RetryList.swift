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
///
/// A retry runs as a task of its own that the list keeps until it ends, so that ``runAll()`` —
/// whoever calls it — returns only once every retry registered or running when it was called
/// has ended: a `synchronize()` that follows a reconnect waits for the retries the reconnect
/// started too.
final class RetryList: Sendable {
    private struct State: Sendable {
        var pending: [@Sendable () async -> Void] = []
        /// Counts the connections made.
        var connection = 0
        /// The retries started and not yet ended, by number.
        var running: [Int: Task<Void, Never>] = [:]
        var nextNumber = 0

        /// Starts `retry` as a task that removes itself from ``running`` when it ends.
        mutating func start(_ retry: @escaping @Sendable () async -> Void, in list: RetryList) -> Task<Void, Never> {
            let number = nextNumber
            nextNumber += 1
            let task = Task {
                await retry()
                list.state.withLock { _ = $0.running.removeValue(forKey: number) }
            }
            running[number] = task
            return task
        }
    }

    /// Guards the pending and running retries and the connection count. Lock order: a leaf
    /// (see `LockRank`).
    private let state = Lock(State(), rank: .leaf)

    /// The current connection's number: read it before sending a request that may need a retry.
    var connection: Int { state.withLock { $0.connection } }

    /// Adds a retry of work that started in connection `startedIn`: it runs once, at the next
    /// drain — or now, if a newer connection has been made since. May be called under a live
    /// query's lock (it takes only its own, and starts the retry as a task of its own).
    func add(startedIn connection: Int, _ retry: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            if connection < state.connection {
                _ = state.start(retry, in: self)
            } else {
                state.pending.append(retry)
            }
        }
    }

    /// Records a new connection, then runs every pending retry.
    func connectionEstablished() async {
        state.withLock { $0.connection += 1 }
        await runAll()
    }

    /// Runs every pending retry, all at once, and returns when they — and every retry already
    /// running when it was called — have ended (a retry that fails again adds itself back for
    /// the next drain). Concurrent, so that one retry that waits long — for events a response
    /// must wait for, say — holds up no other.
    func runAll() async {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            let running = Array(state.running.values)
            let pending = state.pending
            state.pending.removeAll()
            return running + pending.map { state.start($0, in: self) }
        }
        for task in tasks { await task.value }
    }
}
