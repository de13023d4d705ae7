import ChatAPI
import Locking
import LiveCore

/// What a (re)connection changes: the signed-in user, the event numbering, the history the
/// caches belong to, and the recovery that follows (resume, resync or start over).
extension SyncEngine {
    /// Records a (re)connection. When events were missed and cannot be replayed, numbering
    /// restarts from `result.lastSequence` and the waiting responses run now (their events will
    /// never come; the caller then resyncs, which reloads what they showed).
    ///
    /// A connection to another history than the one the caches were filled from (another
    /// ``ChatAPI/ConnectResult/epoch``) is treated as one that cannot resume, and every cached
    /// value is forgotten now — in memory and in the file — before any event of the new
    /// history is applied; ``recover()`` then reloads everything shown.
    ///
    /// The connection's events flow as soon as the server attached it, so the event loop may
    /// have applied some before this runs. When every earlier connection's end has been applied,
    /// what was applied since came on this connection — numbered after `result.lastSequence` —
    /// and the numbering restarts after the newest of them instead: moving back below an event
    /// already applied would leave requests stamped after it, and `synchronize()`, waiting for
    /// an event that came already.
    func didConnect(_ result: ConnectResult) {
        let earlierConnections = connectionsRecorded
        connectionsRecorded += 1
        let ready = connectionWaiters.filter { $0.after < connectionsRecorded }
        connectionWaiters.removeAll { $0.after < connectionsRecorded }
        for waiter in ready { waiter.resume() }
        signedIn.withLock { $0 = result.currentUser }
        isRestored = false
        let incoming = result.epoch.isEmpty ? nil : CacheStore.epochNumber(result.epoch)
        if let incoming, incoming != epoch {
            var outbox: [Message] = []
            if epoch != nil {
                startsOver = true
                outbox = forgetEverything()
            }
            epoch = incoming
            store?.recordEpoch(incoming, startingOver: startsOver)
            // The outbox is the user's, not the old history's: it stays (the file keeps it too)
            // and is sent to the new one.
            messages.upsert(outbox, persisting: false)
        }
        guard result.status != .resumed || startsOver else { return }
        // A resync outranks a fresh start's load; either outranks a resume.
        if result.status != .resumed && owedRecovery != .resyncRequired { owedRecovery = result.status }
        storesSequence = false
        store?.recordSequence(nil)
        let appliedOnThisConnection =
            endedConnectionCount >= earlierConnections ? newestAppliedSinceConnectionEnded : nil
        appliedSequence = max(result.lastSequence, appliedOnThisConnection ?? result.lastSequence)
        runAllWaiters()
    }

    /// Records that the connection ended: whatever waits for events runs now rather than
    /// waiting for a connection that may never come back (`synchronize()` returns, responses
    /// apply). Safe because versions guard the caches: events replayed after a reconnect never
    /// replace the newer values these responses carry.
    func connectionEnded() {
        endedConnections.withLock { $0 += 1 }
        newestAppliedSinceConnectionEnded = nil
        runAllWaiters()
    }

    func runAllWaiters() {
        let all = waiters
        waiters.removeAll()
        for waiter in all { waiter.run(self) }
    }

    /// Brings the caches current after a connection was made, as the connections recorded
    /// since the last recovery call for (``owedRecovery``: a fresh start loads the user's
    /// channels, a resync reloads everything shown, none owed resumes); then whatever failed
    /// for want of a connection runs again.
    func recover() async {
        let status = owedRecovery ?? .resumed
        owedRecovery = nil
        if startsOver {
            startsOver = false
            await resync(discarding: true)
        } else {
            await recover(resuming: status)
        }
        await retries.connectionEstablished()
        storesSequence = true
        store?.recordSequence(appliedSequence)
    }

    func recover(resuming status: ConnectResult.Status) async {
        switch status {
        case .new: await loadMemberships()
        case .resyncRequired: await resync()
        case .resumed:
            // After a start from the file, its channels are the membership list, brought
            // current by the replayed events.
            if store != nil { unread.publish(dataStatus: .fresh, loadingStatus: .loaded) }
        }
    }

    /// Forgets every cached value (another history: see ``didConnect(_:)``): the caches empty,
    /// the unread total loses every channel, typing indicators end.
    /// - Returns: the messages of the outbox (``CachedEntity/isLocal``), to keep.
    @discardableResult
    func forgetEverything() -> [Message] {
        typing.reset()
        let contributions = channels.removeAll().compactMap { channel -> (String, Int?)? in
            Self.unreadContribution(of: channel) == nil ? nil : (channel.channelId, nil)
        }
        if !contributions.isEmpty { unread.set(contributions) }
        unread.publish(dataStatus: .local, loadingStatus: .loading)
        members.removeAll()
        let outbox = messages.removeAll().filter(\.isLocal)
        users.removeAll()
        return outbox
    }

    /// The sequence to resume after on the first connection: the file's, if the caches came
    /// from it.
    var restoredSequence: Int? { isRestored ? appliedSequence : nil }

    /// Ends every ``waitForConnection(after:atMost:)``: the client stopped trying to connect (it
    /// gave up reconnecting, or the user disconnected or closed it), so no connection is coming
    /// by itself.
    func noConnectionComing() {
        let waiting = connectionWaiters
        connectionWaiters.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once more than `count` connections have been made (``connectionsMade``; at once if
    /// they have), after `seconds`, or once the client stops trying to connect
    /// (``noConnectionComing()``), whichever comes first: a request that failed with the
    /// connection it was sent on waits here for the next one.
    func waitForConnection(after count: Int, atMost seconds: Double) async {
        if connectionsRecorded > count { return }
        let once = Lock<CheckedContinuation<Void, Never>?>(nil, rank: .leaf)
        let resume: @Sendable () -> Void = {
            once.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            once.withLock { $0 = continuation }
            connectionWaiters.append((count, resume))
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                resume()
            }
        }
    }
}
