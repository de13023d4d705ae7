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
    /// This run's incarnation of the node (its lease's, ``ServerChangeLog/lease(node:)``): the
    /// entries it writes carry it, and only they answer its callers.
    let incarnation: Int
    let log: any ServerChangeLog
    let epoch: String
    let clock: any ServerClock
    let store: ReplicaStore
    let follower: LogFollower
    let appender: LogAppender
    let waiters: EntryWaiters
    /// Where what this node could not do is reported (``ChatServer/reportDiagnostics(to:)``).
    let diagnostics = ServerDiagnostics()

    /// How long a caller waits for its entry to apply, in seconds.
    static let applyTimeout: TimeInterval = 10

    private let tasks = Lock<[Task<Void, Never>]>([], rank: .leaf)

    init(
        nodeId: String, incarnation: Int, log: any ServerChangeLog, reader: DatabaseServerStore, position: Int,
        clock: any ServerClock
    ) {
        self.nodeId = nodeId
        self.incarnation = incarnation
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

    /// Why this node stopped serving by itself (an entry it cannot read, its lease lost), if it
    /// did; and who waits to hear it, by a number of their own.
    private struct Halt {
        var reason: String?
        var waiters: [Int: CheckedContinuation<String?, Never>] = [:]
        var nextWaiter = 0
    }

    private let halted = Lock(Halt(), rank: .leaf)

    /// Why this node stopped serving by itself, if it did.
    var haltReason: String? { halted.withLock { $0.reason } }

    /// Returns why this node stopped serving by itself, once it has; `nil` when the waiting task
    /// is cancelled.
    func waitForHalt() async -> String? {
        let number = halted.withLock { halted in
            defer { halted.nextWaiter += 1 }
            return halted.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                let answer = halted.withLock { halted -> String?? in
                    if let reason = halted.reason { return .some(reason) }
                    if Task.isCancelled { return .some(nil) }
                    halted.waiters[number] = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            halted.withLock { $0.waiters.removeValue(forKey: number) }?.resume(returning: nil)
        }
    }

    /// Records why the node stops serving (the first reason stays) and wakes who waits for it.
    /// The engine then halts (``ServerEngine/halt()``).
    func noteHalt(_ reason: String) {
        let waiters = halted.withLock { halted -> [CheckedContinuation<String?, Never>] in
            guard halted.reason == nil else { return [] }
            halted.reason = reason
            defer { halted.waiters = [:] }
            return Array(halted.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }

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
    ///
    /// - Throws: as ``LogFollower/catchUp(_:)``.
    func catchUp(_ engine: ServerEngine) async throws(LogFollower.CatchUpError) {
        try await follower.catchUp(engine)
    }

    /// Starts reading the log for `engine`, and beating.
    func start(_ engine: ServerEngine) {
        var started = follower.start(engine) { [appender] in appender.poll() }
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

    /// How many entries the log kept at this node's last beat (`/metrics`: `chat_log_entries`).
    let keptEntries = AtomicValue(0)
    /// The cluster's live nodes as of this node's last beat, each with the position it had
    /// applied at its own last beat (empty before this node's first beat).
    var liveNodes: [String: Int] { lastLiveNodes.withLock { $0 } }
    private let lastLiveNodes = Lock<[String: Int]>([:], rank: .leaf)
    private var isStopped: Bool { stopped.load() }

    private func beat(_ engine: ServerEngine) async {
        let beat: ServerLogBeat
        do {
            beat = try await log.beat(node: nodeId, applied: follower.appliedPosition, silentFor: log.silentLimit)
        } catch let error as ServerNodeInUse {
            // Another process serves the id now: this one must not answer anyone any more.
            engine.halt(because: "this node lost its lease: \(error)")
            return
        } catch {
            return
        }
        keptEntries.store(beat.keptEntries)
        lastLiveNodes.withLock { $0 = beat.liveNodes }
        for node in beat.silentNodes where node != nodeId {
            post(.nodeDown(node), time: engine.clock.now)
            do {
                try await log.forget(node: node)
            } catch {
                diagnostics.report(
                    "the silent node \(node) is counted offline, but its row was not removed from the log's nodes; the next beat tries again",
                    error)
            }
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
        let bytes = try ChangeEntry(node: nodeId, incarnation: incarnation, ref: ref, time: time, kind: kind).encoded()
        return try await waiters.wait(for: ref) { appender.enqueue(ref: ref, bytes: bytes) }
    }

    /// Whether `entry` was written by this run of this node (and so answers one of its callers).
    func wrote(_ entry: ChangeEntry) -> Bool {
        entry.node == nodeId && entry.incarnation == incarnation
    }

    /// Logs `kind` without waiting for it. Kept until it is written, through failed appends
    /// (``LogAppender``).
    func post(_ kind: ChangeEntry.Kind, time: Date) {
        // Entries nobody waits for (a tick, a detach, a node down) carry no metadata: they encode.
        let bytes: [UInt8]
        do {
            bytes = try ChangeEntry(node: nodeId, incarnation: incarnation, ref: 0, time: time, kind: kind).encoded()
        } catch {
            diagnostics.report("an entry of this node (\(kind)) could not be encoded and was not logged", error)
            return
        }
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
        do {
            _ = try await submit(.nodeDown(nodeId), time: time)
        } catch {
            diagnostics.report(
                "this node's stop was not logged: the others count its devices offline once it is silent", error)
        }
        stop()
        do {
            try await appender.writeFinalSnapshot()
        } catch {
            diagnostics.report(
                "this node's last snapshot was not written: its next start reads the log from its previous one", error)
        }
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
