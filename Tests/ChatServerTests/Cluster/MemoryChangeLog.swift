import ChatServer
import Foundation
import Locking

/// A ``ServerChangeLog`` in memory, shared by several `ChatServer` nodes in one process: the
/// tables are a ``MemoryDatabase``, the log an array; notifications can be muted (a node that
/// misses them catches up by polling), appends failed on demand, and snapshot writes held (as
/// behind another node's).
final class MemoryChangeLog: ServerChangeLog, Sendable {
    let tables = MemoryDatabase()
    /// The database's clock (beats are timed by it): the nodes' clock in the tests.
    let clock: any ServerClock

    init(clock: any ServerClock = SystemClock()) {
        self.clock = clock
    }

    private struct Log {
        /// The kept entries: positions `trimmed + 1` on.
        var entries: [[UInt8]] = []
        /// When each kept entry was appended, by the log's clock.
        var times: [Date] = []
        /// The entries removed (positions 1 … `trimmed`).
        var trimmed = 0
        /// Each node's applied position, from its beats.
        var applied: [String: Int] = [:]
        /// The newest position.
        var head: Int { trimmed + entries.count }
        var snapshot = 0
        var beats: [String: Date] = [:]
        var listeners: [AsyncStream<Void>.Continuation] = []
        var muted = false
        var failing = false
        var failingSnapshots = false
        var silentLimit: Double = 15
        /// Each node id's lease: the incarnation of its last run, and whether a run holds it.
        var leases: [String: (incarnation: Int, held: Bool)] = [:]
        /// The appends refused while failing.
        var refused = 0
        /// Whether snapshot writes wait (``holdSnapshots()``), and who waits.
        var snapshotsHeld = false
        var heldSnapshotWrites: [CheckedContinuation<Void, Never>] = []
        /// The snapshot writes that changed the tables.
        var snapshotWrites = 0
        /// Who waits for the log to reach a count of entries, a snapshot position and a number of
        /// refused appends.
        var waiters: [(count: Int, snapshot: Int, refused: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Removes the entries through `position`, but never the newest (see ``ServerChangeLog``).
        mutating func trim(through position: Int) {
            let count = min(entries.count - 1, position - trimmed)
            guard count > 0 else { return }
            entries.removeFirst(count)
            times.removeFirst(count)
            trimmed += count
        }

        /// Takes the waiters whose marks are reached.
        mutating func takeReady() -> [CheckedContinuation<Void, Never>] {
            let (head, snapshot, refused) = (head, snapshot, refused)
            let isReady = {
                (waiter: (count: Int, snapshot: Int, refused: Int, continuation: CheckedContinuation<Void, Never>)) in
                waiter.count <= head && waiter.snapshot <= snapshot && waiter.refused <= refused
            }
            let ready = waiters.filter(isReady)
            waiters.removeAll(where: isReady)
            return ready.map(\.continuation)
        }
    }

    /// Unordered: the snapshot a write stores is asked of the node under this lock.
    private let log = Lock(Log(), rank: .unordered)

    /// The number of entries committed (the newest position).
    var count: Int { log.withLock { $0.head } }
    /// The number of entries kept (not trimmed).
    var keptCount: Int { log.withLock { $0.entries.count } }
    /// The position the tables are at.
    var snapshotPosition: Int { log.withLock { $0.snapshot } }

    /// Stops (or resumes) telling nodes of appends: they then learn of them by polling.
    func setMuted(_ muted: Bool) { log.withLock { $0.muted = muted } }
    /// The number of appends refused so far.
    var refusedCount: Int { log.withLock { $0.refused } }
    /// The snapshot writes that changed the tables so far.
    var snapshotWriteCount: Int { log.withLock { $0.snapshotWrites } }
    /// Makes every append and snapshot write fail (or succeed again).
    func setFailing(_ failing: Bool) { log.withLock { $0.failing = failing } }
    /// Makes snapshot writes alone fail (or succeed again).
    func setFailingSnapshots(_ failing: Bool) { log.withLock { $0.failingSnapshots = failing } }
    /// How long a node may stay silent before ``beat(node:silentFor:)`` names it (nodes started
    /// after the change beat every third of it).
    var silentLimit: Double { log.withLock { $0.silentLimit } }
    func setSilentLimit(_ seconds: Double) { log.withLock { $0.silentLimit = seconds } }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "the test change log refuses appends" }
    }

    func open() async throws -> ServerDatabaseContents {
        var contents = try await tables.open()
        contents.counters["logPosition"] = log.withLock { $0.snapshot }
        return contents
    }

    func messages(in ranges: [ServerRow.MessageRange]) async throws -> [ServerRow.Message] {
        try await tables.messages(in: ranges)
    }

    func write(_ batch: ServerDatabaseBatch) async throws { try await tables.write(batch) }
    func startNewEpoch() async throws -> String { try await tables.startNewEpoch() }
    func close() async {}

    func append(_ entries: [[UInt8]], node: String) async throws -> Int {
        let refusal = log.withLock { log -> [CheckedContinuation<Void, Never>]? in
            guard log.failing else { return nil }
            log.refused += 1
            return log.takeReady()
        }
        if let refusal {
            for waiter in refusal { waiter.resume() }
            throw Refused()
        }
        let (head, listeners) = log.withLock { log -> (Int, [AsyncStream<Void>.Continuation]) in
            log.entries.append(contentsOf: entries)
            log.times.append(contentsOf: Array(repeating: clock.now, count: entries.count))
            return (log.head, entries.isEmpty || log.muted ? [] : log.listeners)
        }
        for listener in listeners { listener.yield() }
        let ready = log.withLock { $0.takeReady() }
        for waiter in ready { waiter.resume() }
        return head
    }

    func writeSnapshot(
        node: String, _ snapshot: @escaping @Sendable (Int) throws -> ServerLogSnapshot?
    ) async throws {
        await withCheckedContinuation { continuation in
            let held = log.withLock { log -> Bool in
                if log.snapshotsHeld { log.heldSnapshotWrites.append(continuation) }
                return log.snapshotsHeld
            }
            if !held { continuation.resume() }
        }
        try log.withLock { log throws in
            guard !log.failing, !log.failingSnapshots else { throw Refused() }
            if let write = try snapshot(log.snapshot), write.through > log.snapshot {
                try tables.writeNow(write.batch)
                log.snapshot = write.through
                log.snapshotWrites += 1
            }
        }
        let ready = log.withLock { $0.takeReady() }
        for waiter in ready { waiter.resume() }
    }

    /// Makes snapshot writes wait until ``releaseSnapshots()``, as a node's waits while another
    /// node writes its own: appends go on meanwhile.
    func holdSnapshots() { log.withLock { $0.snapshotsHeld = true } }

    /// Lets the held snapshot writes go on, and the next ones at once.
    func releaseSnapshots() {
        let held = log.withLock { log -> [CheckedContinuation<Void, Never>] in
            log.snapshotsHeld = false
            defer { log.heldSnapshotWrites = [] }
            return log.heldSnapshotWrites
        }
        for waiter in held { waiter.resume() }
    }

    /// The number of snapshot writes waiting for ``releaseSnapshots()``.
    var heldSnapshotWriteCount: Int { log.withLock { $0.heldSnapshotWrites.count } }

    /// Returns once the log holds at least `count` entries, its tables are at position
    /// `snapshot` or later, and it has refused at least `refused` appends (no polling: appends
    /// wake it).
    func waitUntil(count: Int = 0, snapshot: Int = 0, refused: Int = 0) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = log.withLock { log -> Bool in
                if log.head >= count, log.snapshot >= snapshot, log.refused >= refused { return true }
                log.waiters.append((count, snapshot, refused, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    func entries(after position: Int, limit: Int) async throws -> [ServerLogEntry] {
        log.withLock { log in
            let start = max(log.trimmed, position)
            guard start < log.head else { return [] }
            let end = min(log.head, start + limit)
            return (start..<end).map {
                ServerLogEntry(
                    position: $0 + 1, bytes: log.entries[$0 - log.trimmed], writtenAt: log.times[$0 - log.trimmed])
            }
        }
    }

    func head() async throws -> Int { count }

    func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        log.withLock { $0.listeners.append(continuation) }
        return stream
    }

    /// At most how many entries a beat removes.
    static let trimBatch = 1_000

    func beat(node: String, applied: Int, silentFor: Double) async throws -> ServerLogBeat {
        try log.withLock { log throws -> ServerLogBeat in
            guard log.leases[node]?.held != false else { throw ServerNodeInUse(node: node) }
            let now = clock.now
            log.beats[node] = now
            log.applied[node] = applied
            let live = log.beats.filter { now.timeIntervalSince($0.value) <= silentFor }.map(\.key)
            let bound = min(log.snapshot, live.compactMap { log.applied[$0] }.min() ?? 0)
            log.trim(through: min(bound, log.trimmed + Self.trimBatch))
            let silent = log.beats.filter { now.timeIntervalSince($0.value) > silentFor }.map(\.key).sorted()
            return ServerLogBeat(
                silentNodes: silent.filter { $0 != node }, keptEntries: log.entries.count,
                liveNodes: Dictionary(uniqueKeysWithValues: live.map { ($0, log.applied[$0] ?? 0) }))
        }
    }

    /// Removes the entries through `position` at once (all but the newest), whoever needs them
    /// (a node then finds a gap).
    func trim(through position: Int) {
        log.withLock { $0.trim(through: position) }
    }

    func forget(node: String) async throws {
        _ = log.withLock { $0.beats.removeValue(forKey: node) }
    }

    /// Nodes in one process share this log, so a lease here is per node id: taking one that is
    /// held throws, as a second process would be refused.
    func lease(node: String) async throws -> Int {
        try log.withLock { log throws -> Int in
            var lease = log.leases[node] ?? (0, false)
            guard !lease.held else { throw ServerNodeInUse(node: node) }
            lease.incarnation += 1
            lease.held = true
            log.leases[node] = lease
            return lease.incarnation
        }
    }

    /// Ends `node`'s lease, as the death of its process (or of its database session) does: the
    /// id can be taken again, and the run that held it is told at its next beat.
    func endLease(node: String) {
        log.withLock { $0.leases[node]?.held = false }
    }
}
