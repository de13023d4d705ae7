import ChatAPI
import Foundation
import Locking

/// A node's side of a cluster's change log (``ServerChangeLog``), made of one part per role,
/// each on the engine's clock:
///
/// - ``appender`` (``LogAppender``) writes the node's entries, many per transaction;
/// - ``follower`` (``LogFollower``) reads every node's entries in order, hands them to the engine
///   (``ServerEngine/apply(_:)``) and knows how far the node has applied (the read barrier);
/// - ``waiters`` (``EntryWaiters``) answers the node's callers once their entries apply;
/// - ``store`` (``ReplicaStore``) is the engine's ``ServerStore``: what the node applied,
///   kept until an append writes it into the tables.
///
/// This type joins them, and beats for the node: a node silent for the log's
/// ``ServerChangeLog/silentLimit`` has its devices taken offline by the others.
///
/// - Threading: thread-safe.
final class ClusterReplica: Sendable {
    let nodeId: String
    let log: any ServerChangeLog
    let epoch: String
    let clock: any ServerClock
    let store: ReplicaStore
    let follower: LogFollower
    let appender: LogAppender
    let waiters: EntryWaiters

    /// How long a caller waits for its entry to apply, in seconds.
    static let applyTimeout: TimeInterval = 10

    private let tasks = Lock<[Task<Void, Never>]>([], rank: .leaf)

    init(nodeId: String, log: any ServerChangeLog, reader: DatabaseServerStore, position: Int, clock: any ServerClock) {
        self.nodeId = nodeId
        self.log = log
        self.clock = clock
        epoch = reader.epoch
        let store = ReplicaStore(reader: reader, position: position)
        let follower = LogFollower(log: log, clock: clock, position: position)
        let waiters = EntryWaiters(clock: clock, timeout: Self.applyTimeout)
        self.store = store
        self.follower = follower
        self.waiters = waiters
        appender = LogAppender(
            nodeId: nodeId, log: log, clock: clock, store: store, committed: { follower.ring() },
            failed: { refs, error in waiters.fail(refs, with: error) })
    }

    var isHealthy: Bool { store.isHealthy }

    /// The number of appends committed by this node.
    var commitCount: Int { appender.commitCount }

    /// The position of the last entry applied here.
    var appliedPosition: Int { follower.appliedPosition }

    /// How far behind the newest entry it has read this node is: the age of the newest entry
    /// applied when more are known to wait, else 0 (seconds).
    var lag: Double {
        guard appender.hasQueued || !waiters.isEmpty else { return 0 }
        return max(0, clock.now.timeIntervalSince(follower.appliedTime))
    }

    // MARK: Starting

    /// Applies every committed entry (at start, before the node serves).
    func catchUp(_ engine: ServerEngine) async throws(ChatError) {
        try await follower.catchUp(engine)
    }

    /// Starts reading the log for `engine`, and beating.
    func start(_ engine: ServerEngine) {
        var started = follower.start(engine) { [appender] in appender.writeSnapshotIfDue() }
        started.append(
            Task { [weak engine, clock] in
                // Three beats within the silent limit: a node is named silent only when two in a
                // row were lost or late.
                let interval = self.log.silentLimit / 3
                while !Task.isCancelled, !self.isStopped {
                    if let engine { await self.beat(engine) }
                    try? await clock.sleep(until: clock.now + interval)
                }
            })
        tasks.withLock { $0 = started }
    }

    private let stopped = AtomicValue(false)
    private var isStopped: Bool { stopped.load() }

    private func beat(_ engine: ServerEngine) async {
        guard let silent = try? await log.beat(node: nodeId, silentFor: log.silentLimit) else { return }
        for node in silent where node != nodeId {
            post(.nodeDown(node), time: engine.clock.now)
            try? await log.forget(node: node)
        }
    }

    // MARK: Writing entries

    /// A new ref for an entry a caller will wait on.
    func newRef() -> UInt64 { waiters.newRef() }

    /// Logs `kind` and returns its outcome once it applied here.
    ///
    /// - Throws: the entry's error; `unavailable` when it could not be logged or did not apply
    ///   within ``applyTimeout`` (it may still apply later).
    func submit(_ kind: ChangeEntry.Kind, ref: UInt64? = nil, time: Date) async throws(ChatError) -> ChangeOutcome {
        let ref = ref ?? newRef()
        let bytes = try ChangeEntry(node: nodeId, ref: ref, time: time, kind: kind).encoded()
        return try await waiters.wait(for: ref) { appender.enqueue(ref: ref, bytes: bytes) }
    }

    /// Logs `kind` without waiting for it.
    func post(_ kind: ChangeEntry.Kind, time: Date) {
        // Entries nobody waits for (a tick, a detach, a node down) carry no metadata: they encode.
        guard let bytes = try? ChangeEntry(node: nodeId, ref: 0, time: time, kind: kind).encoded() else { return }
        _ = appender.enqueue(ref: 0, bytes: bytes)
    }

    // MARK: Applying

    /// Called by the engine under its lock once entries through `position` are applied.
    func noteApplied(through position: Int, at time: Date) {
        store.noteApplied(through: position)
        follower.noteApplied(through: position, at: time)
    }

    /// Answers this node's callers whose entries applied.
    func complete(_ outcomes: [(UInt64, Result<ChangeOutcome, ChatError>)]) {
        waiters.complete(outcomes)
    }

    /// A read barrier (``LogFollower/awaitCommitted()``).
    func awaitCommitted() async throws(ChatError) {
        try await follower.awaitCommitted()
    }

    // MARK: Stopping

    /// Tells the service this node is gone (its devices are counted offline at once), writes
    /// the snapshot, stops reading and closes the log.
    func close(nodeDownAt time: Date) async {
        _ = try? await submit(.nodeDown(nodeId), time: time)
        stop()
        await appender.writeFinalSnapshot()
        await log.close()
    }

    /// Stops reading, beating and appending at once, telling nobody (``ServerEngine/halt()``).
    func halt() {
        stop()
    }

    private func stop() {
        stopped.store(true)
        appender.stop()
        waiters.failAll(with: .unavailable("the server is closed"))
        follower.stop()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
