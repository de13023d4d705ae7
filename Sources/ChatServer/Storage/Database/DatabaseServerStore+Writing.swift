import ChatAPI
import Locking
import RowCoding

/// Writing and closing: the one writer of the store (group commit), as a task for a database
/// whose commit is a round trip, or as a loop on a ``LocalServerDatabase``'s own thread.
extension DatabaseServerStore {
    // MARK: Writing

    func enqueue(_ changes: StorageChanges) -> Int {
        let (start, ticket) = state.withLock { state -> (Bool, Int) in
            let ticket = state.add(changes)
            guard !state.pending.isEmpty, !state.isWriting else { return (false, ticket) }
            state.isWriting = true
            return (true, ticket)
        }
        if start {
            if let local = database as? any LocalServerDatabase {
                local.onWriterThread { self.writePending(on: local) }
            } else {
                Task { await self.writePending() }
            }
        }
        return ticket
    }

    func waitUntilWritten(_ ticket: Int) async throws(ChatError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state in
                    state.outcome(
                        of: ticket, closed: .unavailable("the server's database is closed"), continuation: continuation)
                }
                if let outcome { continuation.resume(with: outcome.mapError { $0 as any Error }) }
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// The writer: commits everything pending, batch after batch, until nothing is; after a
    /// failure, again a second later.
    private func writePending() async {
        while true {
            await gather()
            guard let (batch, through) = nextBatch() else { return }
            let result: Result<Void, ChatError>
            do {
                try await database.write(try Self.encode(batch))
                result = .success(())
            } catch let error as ChatError {
                result = .failure(error)
            } catch {
                result = .failure(.unavailable("the server's database failed writing: \(error)"))
            }
            switch finish(batch, through: through, with: result) {
            case .next: continue
            case .retryLater: try? await Task.sleep(for: Self.retryDelay)
            case .stop: return
            }
        }
    }

    /// The writer of a local database, on the database's own thread (``LocalServerDatabase``):
    /// the same turns as ``writePending()``, without a hop between batches; after a failure,
    /// it comes back to that thread a second later.
    private func writePending(on local: any LocalServerDatabase) {
        while let (batch, through) = nextBatch() {
            let result = Result { () throws(ChatError) in try local.writeNow(try Self.encode(batch)) }
            switch finish(batch, through: through, with: result) {
            case .next:
                continue
            case .retryLater:
                Task {
                    try? await Task.sleep(for: Self.retryDelay)
                    local.onWriterThread { self.writePending(on: local) }
                }
                return
            case .stop:
                return
            }
        }
    }

    /// The writer's next batch: everything pending; `nil` when nothing is (the writer then
    /// stops, and whoever waits for it to be idle is woken).
    private func nextBatch() -> (changes: StorageChanges, through: Int)? {
        while true {
            let (batch, through) = state.withLock { $0.takeBatch() }
            if !batch.isEmpty { return (batch, through) }
            let (stop, idle) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard state.pending.isEmpty else { return (false, []) }
                state.isWriting = false
                return (true, state.takeIdle())
            }
            for waiter in idle { waiter.resume() }
            if stop { return nil }
        }
    }

    /// What the writer does after a batch.
    private enum AfterBatch {
        /// The next batch.
        case next
        /// The batch failed: the same changes (merged with newer ones) again after ``retryDelay``.
        case retryLater
        /// The batch failed and the store is closed: the writer ends.
        case stop
    }

    /// Answers the tickets `batch` covered with `result`.
    private func finish(_ batch: StorageChanges, through: Int, with result: Result<Void, ChatError>) -> AfterBatch {
        CommitQueue<StorageChanges>.resume(state.withLock { $0.finish(batch, through: through, with: result) })
        guard case .failure = result else { return .next }
        let (closed, idle) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            if state.isClosed { state.isWriting = false }
            return (state.isClosed, state.takeIdle())
        }
        for waiter in idle { waiter.resume() }
        return closed ? .stop : .retryLater
    }

    /// Lets the callers a commit just answered queue their next changes before the next batch
    /// is taken: yields while the queue keeps growing (at most ``gatherTurns`` times), so a
    /// database whose commit costs a round trip takes one batch of many callers instead of a
    /// few small ones. Without concurrent callers the queue does not grow and it returns at once.
    private func gather() async {
        var seen = state.withLock { $0.lastTicket }
        for _ in 0..<Self.gatherTurns {
            await Task.yield()
            let now = state.withLock { $0.lastTicket }
            if now == seen { return }
            seen = now
        }
    }

    /// The most turns ``gather()`` yields before a batch.
    static let gatherTurns = 16

    /// The rows of `changes`.
    static func encode(_ changes: StorageChanges) throws(ChatError) -> ServerDatabaseBatch {
        var writer = RowWriter()
        func encoded(_ value: some RowCodable) throws(ChatError) -> [UInt8] {
            writer.removeAll()
            do {
                try value.encodeRow(to: &writer)
            } catch {
                throw .unavailable("the server's state cannot be encoded: \(error)")
            }
            return writer.bytes
        }
        var batch = ServerDatabaseBatch()
        for (id, user) in changes.users { batch.users.append(ServerRow.User(userId: id, value: try encoded(user))) }
        for (id, write) in changes.channels {
            let extras = try write.extras.map { extras throws(ChatError) in try encoded(extras) }
            batch.channels.append(ServerRow.Channel(channelId: id, info: try encoded(write.info), extras: extras))
        }
        for (key, member) in changes.members {
            let rowKey = ServerRow.MemberKey(channelId: key.channelId, userId: key.userId)
            if let member {
                batch.members.append(ServerRow.Member(key: rowKey, value: try encoded(member)))
            } else {
                batch.removedMembers.append(rowKey)
            }
        }
        for (key, message) in changes.messages {
            batch.messages.append(
                ServerRow.Message(channelId: key.channelId, sequence: key.sequence, value: try encoded(message)))
        }
        for (device, connection) in changes.connections {
            let key = ServerRow.Device(userId: device.userId, deviceId: device.deviceId)
            if let connection {
                batch.connections.append(
                    ServerRow.Connection(
                        device: key, node: connection.node, attachedAt: connection.attachedAt,
                        reading: connection.reading.sorted()))
            } else {
                batch.removedConnections.append(key)
            }
        }
        for (device, lastSequence) in changes.deviceEvents {
            batch.deviceEvents.append(
                ServerRow.DeviceEvents(
                    device: ServerRow.Device(userId: device.userId, deviceId: device.deviceId),
                    lastSequence: lastSequence))
        }
        if changes.countersChanged {
            let counters = changes.counters
            batch.counters = [
                "revision": counters.revision, "nextChannelNumber": counters.nextChannelNumber,
                "nextMessageNumber": counters.nextMessageNumber, "eventSequenceCeiling": counters.eventSequenceCeiling,
                "messagesSent": counters.messagesSent,
            ]
        }
        return batch
    }

    // MARK: Closing

    /// Returns once no writer is taking batches (not cancellable: the store must not close the
    /// database under a commit).
    private func writerIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.isWriting else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    func close() async {
        let first = state.withLock { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard first else { return }
        // Writes what is queued: the writer running finishes it (a failure now that the store is
        // closed ends it), then this call tries once more what is left.
        await writerIdle()
        let start = state.withLock { state -> Bool in
            guard !state.pending.isEmpty else { return false }
            state.isWriting = true
            return true
        }
        if start { await writePending() }
        for waiter in state.withLock({ $0.takeWaiters() }) {
            waiter.continuation.resume(throwing: ChatError.unavailable("the server's database is closed"))
        }
        await database.close()
    }
}
