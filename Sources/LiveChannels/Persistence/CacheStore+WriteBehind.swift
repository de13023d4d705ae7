import Dispatch
import SQLiteSupport

/// The delivery path's side of writing behind: recording values, lists and the event sequence into
/// the pending batch under a lock (never waiting on disk), units of work written whole or not at
/// all, and flushing, clearing and closing the file. The writer that takes the batch is in
/// `CacheStore+Writer.swift`.
extension CacheStore {
    /// Adds stored values to the next batch. O(k) under a lock; never waits on disk.
    func record<Entity: CachedEntity>(_ values: [Entity]) {
        let schedule = pending.withLock { pending in
            pending.writes.add(values)
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Records that local messages were discarded: their rows are deleted (unless the server
    /// stored the message meanwhile: that row is the server's and stays).
    func recordDiscarded(_ messages: [Message]) {
        let schedule = pending.withLock { pending in
            for message in messages {
                pending.writes.discardedMessages.insert(message.cacheKey)
                pending.writes.messages[message.cacheKey] = nil
            }
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Starts a unit of work: what is recorded until ``endUnit(sequence:)`` is written in one
    /// batch or not at all (an event's channel and message together). A unit must not suspend
    /// between its start and its end: the writer waits for it to end before taking a batch.
    func beginUnit() {
        pending.withLock { $0.depth += 1 }
    }

    /// Ends a unit of work, with `sequence` (the event it applied) as the sequence the file
    /// reaches, if given.
    func endUnit(sequence: Int?) {
        let schedule = pending.withLock { pending -> Bool in
            pending.depth -= 1
            if let sequence, pending.storesSequence { pending.writes.sequence = .set(sequence) }
            guard pending.depth == 0, !pending.writes.isEmpty else { return false }
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Records the first page of a live list (cache keys), so that the next start shows it at
    /// once.
    func recordList(_ storageKey: String, kind: StoredKind, keys: [String]) {
        let schedule = pending.withLock { pending in
            pending.writes.lists[storageKey] = (kind, keys)
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Records that the values recorded so far hold every change up to event `sequence`
    /// (`nil`: the file cannot resume).
    func recordSequence(_ sequence: Int?) {
        let schedule = pending.withLock { pending -> Bool in
            let write: PendingWrites.SequenceWrite
            if let sequence {
                guard pending.storesSequence else { return false }
                write = .set(sequence)
            } else {
                write = .clear
            }
            pending.writes.sequence = write
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Records that the values recorded from now on come from the server history `epoch`
    /// (``epochNumber(_:)``). With `startingOver`, what the file holds is from another history:
    /// it is deleted — with the event sequence, and everything recorded but not yet written —
    /// in the transaction that writes what is recorded next, so the file never mixes the two.
    func recordEpoch(_ epoch: Int, startingOver: Bool) {
        let schedule = pending.withLock { pending -> Bool in
            if startingOver {
                pending.writes = PendingWrites()
                pending.writes.startsOver = true
                pending.writes.sequence = .clear
            }
            pending.writes.epoch = epoch
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// The number the file records for a server's epoch: its 64-bit FNV-1a hash (the file's
    /// `meta` holds integers). Equal epochs give equal numbers; two epochs that differ give
    /// the same number with a chance of 2^-64.
    static func epochNumber(_ epoch: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in epoch.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(bitPattern: UInt(hash))
    }

    /// Returns once everything recorded before the call is written.
    func flush() async {
        await onQueue { self.writePending() }
    }

    /// Deletes every stored row but the outbox's (``CacheSchema/deleteEverything``). Values
    /// stored later are written again, but the file no longer resumes from an event sequence (the
    /// next start connects afresh). The outbox's pending writes stay pending.
    /// - Throws: the write failure as a `ChatError`.
    func clear() async throws {
        pending.withLock { pending in
            var kept = PendingWrites()
            kept.add(pending.writes.messages.values.filter(\.isLocal))
            kept.discardedMessages = pending.writes.discardedMessages
            pending.writes = kept
            pending.storesSequence = false
        }
        try await onQueueThrowing {
            try self.file.withLock { state in
                guard let connection = state.connection else { return }
                do {
                    try connection.transaction { try connection.execute(CacheSchema.deleteEverything) }
                } catch let error as SQLiteError {
                    throw error.chatError(path: self.path)
                }
            }
        }
    }

    /// Writes what is pending and closes the file (releasing it for another client). Values
    /// stored afterwards are not written.
    func close() async {
        await onQueue {
            self.writePending()
            self.file.withLock { $0.connection = nil }
        }
    }

    /// ``close()`` for a client being freed: writes what is pending and closes the file before
    /// it returns, so a new client can open the file at once. Waits for the writer's current
    /// batch. A unit of work under way (which would be the caller's own if the client were
    /// freed inside one) is waited for at most `unitWait`; past it, what is pending is left
    /// unwritten (the file keeps the last batch written: a state the client had). Must not be
    /// called on the store's queue.
    func closeNow(unitWait: Duration = .milliseconds(100)) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync {
            self.writePending(unitWait: unitWait)
            self.file.withLock { $0.connection = nil }
        }
    }

    func scheduleWrite() {
        queue.asyncAfter(deadline: .now() + Self.gathering) { self.writePending() }
    }
}
