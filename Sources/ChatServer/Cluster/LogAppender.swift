import ChatAPI
import Foundation
import Locking

/// Writes one node's entries to the cluster's change log: everything queued while the previous
/// append was committing goes in the next one (group commit, kept by the storage's one batching
/// writer's bookkeeping, ``CommitQueue``, as the store's rows are). Beside the appends, at most once per
/// ``snapshotDelay``, it writes the snapshot rows this node can bring forward
/// (``ReplicaStore/snapshot(after:)``) in a write of their own
/// (``ServerChangeLog/writeSnapshot(node:_:)``): an append never waits for a snapshot, this
/// node's or another's, and the tables follow the log within about ``snapshotDelay`` (after a
/// committed append, or at a poll for a quiet node: ``writeSnapshotIfDue()``).
///
/// - Threading: thread-safe. Lock order: `LockRank.storeWriter`, after the engine's lock.
final class LogAppender: Sendable {
    let nodeId: String
    let log: any ServerChangeLog
    private let clock: any ServerClock
    private let store: ReplicaStore
    /// Told after each committed append (the follower reads the log then).
    private let committed: @Sendable () -> Void
    /// Told the refs of a batch whose append failed (0s left out).
    private let failed: @Sendable ([UInt64], ChatError) -> Void

    /// How long after this node last wrote (or tried to write) its snapshot it writes it again,
    /// when it holds changes the tables lack.
    static let snapshotDelay: TimeInterval = 1
    /// How long after a failed append the entries it kept are tried again (when no new entry
    /// starts an append first).
    static let retryDelay: TimeInterval = 0.25

    /// Entries to append, in order, each with its waiter's ref (0: nobody waits).
    struct Batch: CommitBatch {
        var entries: [(ref: UInt64, bytes: [UInt8])] = []
        var isEmpty: Bool { entries.isEmpty }
        mutating func merge(_ newer: Batch) { entries += newer.entries }
        /// The entries nobody waits for (a detach, a node down, a tick): what a failed append
        /// keeps to try again.
        var unanswered: Batch { Batch(entries: entries.filter { $0.ref == 0 }) }
    }

    private struct State {
        /// The entries queued, the append under way (``CommitQueue/isWriting``), whether the
        /// node stopped (``CommitQueue/isClosed``), the appends committed.
        var queue = CommitQueue<Batch>()
        /// Whether a snapshot's write is under way (one at a time; appends go on beside it).
        var isWritingSnapshot = false
        /// When this node last wrote (or tried to write) its snapshot.
        var lastSnapshot: Date
        /// When an append last failed.
        var lastFailure = Date.distantPast
    }

    private let state: Lock<State>

    init(
        nodeId: String, log: any ServerChangeLog, clock: any ServerClock, store: ReplicaStore,
        committed: @escaping @Sendable () -> Void, failed: @escaping @Sendable ([UInt64], ChatError) -> Void
    ) {
        self.nodeId = nodeId
        self.log = log
        self.clock = clock
        self.store = store
        self.committed = committed
        self.failed = failed
        state = Lock(State(lastSnapshot: clock.now), rank: .storeWriter)
    }

    /// The number of appends committed by this node.
    var commitCount: Int { state.withLock { $0.queue.commits } }

    /// Whether entries wait to be appended.
    var hasQueued: Bool { state.withLock { !$0.queue.pending.isEmpty } }

    /// Whether an append is under way.
    var isAppending: Bool { state.withLock { $0.queue.isWriting } }

    /// Queues an entry's bytes (`ref` 0: nobody waits) and starts an append when none runs.
    /// Returns `false` once the node is closed.
    func enqueue(ref: UInt64, bytes: [UInt8]) -> Bool {
        let start = state.withLock { state -> Bool? in
            guard !state.queue.isClosed else { return nil }
            _ = state.queue.add(Batch(entries: [(ref, bytes)]))
            guard !state.queue.isWriting else { return false }
            state.queue.isWriting = true
            return true
        }
        guard let start else { return false }
        if start { Task { await self.appendQueued() } }
        return true
    }

    /// Commits what is queued, batch after batch, until the queue is empty.
    private func appendQueued() async {
        while true {
            // Let concurrent callers queue theirs first (see DatabaseServerStore.gather).
            for _ in 0..<4 { await Task.yield() }
            let (batch, through) = state.withLock { state -> (Batch, Int) in
                let taken = state.queue.takeBatch()
                if taken.changes.isEmpty { state.queue.isWriting = false }
                return taken
            }
            if batch.isEmpty { return }
            do {
                try await log.append(batch.entries.map(\.bytes), node: nodeId)
                _ = state.withLock { $0.queue.finish(batch, through: through, with: .success(())) }
                store.setHealthy(true)
                committed()
                writeSnapshotIfDue()
            } catch {
                store.setHealthy(false)
                // An entry nobody waits for (a detach, a node down, a tick) is what other nodes
                // need to hear and nobody would send again: it stays queued, ahead of newer
                // ones, and goes with the next append (the next request, or the next poll's
                // retry). The append may have committed all the same (its answer lost): written
                // twice, each of those entries changes nothing the second time. A caller waits
                // on its entry: it is told, and may retry (a message's id makes that safe).
                let now = clock.now
                let failure = ChatError.unavailable("the change log did not confirm the write: \(error)")
                state.withLock { state in
                    _ = state.queue.finish(batch, through: through, with: .failure(failure), keeping: \.unanswered)
                    if state.queue.isClosed { state.queue.discardPending() }
                    state.lastFailure = now
                    state.queue.isWriting = false
                }
                failed(
                    batch.entries.map(\.ref).filter { $0 != 0 },
                    .unavailable(
                        "the change log did not confirm the write (\(error)), so it may still apply; retrying with the same message id is safe"
                    ))
                return
            }
        }
    }

    /// Every poll of the follower: retries the entries a failed append kept, ``retryDelay``
    /// after the failure, and writes the snapshot when due (``writeSnapshotIfDue()``).
    func poll() {
        let now = clock.now
        let retry = state.withLock { state -> Bool in
            guard !state.queue.isClosed, !state.queue.isWriting, !state.queue.pending.isEmpty,
                now.timeIntervalSince(state.lastFailure) >= Self.retryDelay
            else { return false }
            state.queue.isWriting = true
            return true
        }
        if retry { Task { await appendQueued() } }
        writeSnapshotIfDue()
    }

    /// Writes the snapshot, in a write of its own beside the appends, when this node holds
    /// changes the tables lack, has not written it for ``snapshotDelay``, and is not writing it
    /// already.
    func writeSnapshotIfDue() {
        let now = clock.now
        let holds = store.holdsUnstoredChanges
        let due = state.withLock { state -> Bool in
            guard !state.queue.isClosed, !state.isWritingSnapshot, holds,
                now.timeIntervalSince(state.lastSnapshot) >= Self.snapshotDelay
            else { return false }
            state.isWritingSnapshot = true
            state.lastSnapshot = now
            return true
        }
        guard due else { return }
        Task {
            do {
                try await log.writeSnapshot(node: nodeId) { [store] stored in try store.snapshot(after: stored) }
                store.setHealthy(true)
            } catch {
                store.setHealthy(false)
            }
            state.withLock { $0.isWritingSnapshot = false }
        }
    }

    /// Stops appending (what is queued is dropped). Idempotent.
    func stop() {
        state.withLock { state in
            state.queue.isClosed = true
            state.queue.discardPending()
        }
    }

    /// Writes this node's snapshot a last time (after ``stop()``).
    /// - Throws: the log's error when it could not be written.
    func writeFinalSnapshot() async throws {
        try await log.writeSnapshot(node: nodeId) { [store] stored in try store.snapshot(after: stored) }
    }
}
