import ChatAPI
import Foundation
import Locking

/// The ``ServerStore`` a node of a cluster offers its engine: the changes the engine makes while
/// applying entries are kept, by the log position they are current at, until some node's
/// snapshot writes them into the tables (any node writes what it applied beyond the stored
/// snapshot, about once a second: ``snapshot(after:)``, ``LogAppender``). Changes are durable
/// once their entry is committed, so nothing waits for them.
///
/// - Threading: thread-safe. Lock order: `LockRank.storeWriter`, after the engine's lock.
final class ReplicaStore: ServerStore {
    let epoch: String
    /// Reads old messages from the tables.
    private let reader: DatabaseServerStore

    /// The changes applied since the stored snapshot, by the position they are current at.
    private struct Chunk {
        var through: Int
        var changes: StorageChanges
    }

    private struct State {
        var chunks: [Chunk] = []
        /// The position of the last entry applied (what new changes are current at).
        var applied: Int
        var healthy = true
    }

    private let state: Lock<State>

    init(reader: DatabaseServerStore, position: Int) {
        self.reader = reader
        epoch = reader.epoch
        state = Lock(State(applied: position), rank: .storeWriter)
    }

    /// Whether the last append or snapshot write of this node succeeded.
    var isHealthy: Bool { state.withLock { $0.healthy } }
    func setHealthy(_ healthy: Bool) { state.withLock { $0.healthy = healthy } }

    /// Whether this node holds changes the tables do not have yet.
    var holdsUnstoredChanges: Bool { state.withLock { !$0.chunks.isEmpty } }

    /// Called by the engine under its lock once entries through `position` are applied.
    func noteApplied(through position: Int) {
        state.withLock { $0.applied = position }
    }

    /// The rows that bring the stored snapshot from `stored` to what this node applied (`nil`
    /// when it holds nothing newer); forgets what the stored snapshot has.
    ///
    /// - Complexity: O(chunks) under the store's lock (the engine's `enqueue` waits for it);
    ///   the merging and encoding, O(changes), outside it.
    func snapshot(after stored: Int) throws -> ServerLogSnapshot? {
        let chunks = state.withLock { state -> [Chunk] in
            state.chunks.removeAll { $0.through <= stored }
            return state.chunks
        }
        guard var merged = chunks.first?.changes, let through = chunks.last?.through else { return nil }
        for chunk in chunks.dropFirst() { merged.merge(chunk.changes) }
        return ServerLogSnapshot(batch: try DatabaseServerStore.encode(merged), through: through)
    }

    // MARK: ServerStore

    func enqueue(_ changes: StorageChanges) -> Int {
        guard !changes.isEmpty else { return 0 }
        state.withLock { state in
            if let last = state.chunks.last, last.through == state.applied {
                state.chunks[state.chunks.count - 1].changes.merge(changes)
            } else {
                state.chunks.append(Chunk(through: state.applied, changes: changes))
            }
        }
        return 0
    }

    /// Changes are durable once their entry is committed: nothing to wait for.
    func waitUntilWritten(_ ticket: Int) async throws(ChatError) {}

    func messages(channelId: String, in range: ClosedRange<Int>) async throws(ChatError) -> [Message] {
        // What is applied but not yet in the tables is newer than them. Read first: a chunk is
        // forgotten only once the tables hold it, so the tables read next have what it had.
        let pending = state.withLock { state -> [Int: Message] in
            var found: [Int: Message] = [:]
            for chunk in state.chunks {
                for sequence in range {
                    if let message = chunk.changes.messages[
                        StorageChanges.MessageKey(channelId: channelId, sequence: sequence)]
                    {
                        found[sequence] = message
                    }
                }
            }
            return found
        }
        var found: [Int: Message] = [:]
        for message in try await reader.messages(channelId: channelId, in: range) { found[message.sequence] = message }
        found.merge(pending) { _, new in new }
        return found.keys.sorted().map { found[$0]! }
    }

    /// The cluster's log closes the database (``ClusterReplica/close(nodeDownAt:)``).
    func close() async {}
}
