import ChatServer
import Foundation
import Locking

/// A ``ServerChangeLog`` in memory, shared by several `ChatServer` nodes in one process: the
/// tables are a ``MemoryDatabase``, the log an array; notifications can be muted (a node that
/// misses them catches up by polling) and appends failed on demand.
final class MemoryChangeLog: ServerChangeLog, Sendable {
    let tables = MemoryDatabase()
    /// The database's clock (beats are timed by it): the nodes' clock in the tests.
    let clock: any ServerClock

    init(clock: any ServerClock = SystemClock()) {
        self.clock = clock
    }

    private struct Log {
        var entries: [[UInt8]] = []
        var snapshot = 0
        var beats: [String: Date] = [:]
        var listeners: [AsyncStream<Void>.Continuation] = []
        var muted = false
        var failing = false
        var silentLimit: Double = 15
        /// Who waits for the log to reach a count of entries and a snapshot position.
        var waiters: [(count: Int, snapshot: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Unordered: the snapshot an append writes is asked of the node under this lock.
    private let log = Lock(Log(), rank: .unordered)

    /// The number of entries committed.
    var count: Int { log.withLock { $0.entries.count } }
    /// The position the tables are at.
    var snapshotPosition: Int { log.withLock { $0.snapshot } }

    /// Stops (or resumes) telling nodes of appends: they then learn of them by polling.
    func setMuted(_ muted: Bool) { log.withLock { $0.muted = muted } }
    /// Makes every append fail (or succeed again).
    func setFailing(_ failing: Bool) { log.withLock { $0.failing = failing } }
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

    func append(
        _ entries: [[UInt8]], node: String, snapshot: @escaping @Sendable (Int) throws -> ServerLogSnapshot?
    ) async throws -> Int {
        let (head, listeners) = try log.withLock { log throws -> (Int, [AsyncStream<Void>.Continuation]) in
            if log.failing { throw Refused() }
            if let write = try snapshot(log.snapshot), write.through > log.snapshot {
                try tables.writeNow(write.batch)
                log.snapshot = write.through
            }
            log.entries.append(contentsOf: entries)
            return (log.entries.count, entries.isEmpty || log.muted ? [] : log.listeners)
        }
        for listener in listeners { listener.yield() }
        let ready = log.withLock { log in
            let ready = log.waiters.filter { $0.count <= log.entries.count && $0.snapshot <= log.snapshot }
            log.waiters.removeAll { $0.count <= log.entries.count && $0.snapshot <= log.snapshot }
            return ready.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
        return head
    }

    /// Returns once the log holds at least `count` entries and its tables are at position
    /// `snapshot` or later (no polling: appends wake it).
    func waitUntil(count: Int = 0, snapshot: Int = 0) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = log.withLock { log -> Bool in
                if log.entries.count >= count, log.snapshot >= snapshot { return true }
                log.waiters.append((count, snapshot, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    func entries(after position: Int, limit: Int) async throws -> [ServerLogEntry] {
        log.withLock { log in
            let start = max(0, position)
            guard start < log.entries.count else { return [] }
            let end = min(log.entries.count, start + limit)
            return (start..<end).map { ServerLogEntry(position: $0 + 1, bytes: log.entries[$0]) }
        }
    }

    func head() async throws -> Int { count }

    func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        log.withLock { $0.listeners.append(continuation) }
        return stream
    }

    func beat(node: String, silentFor: Double) async throws -> [String] {
        log.withLock { log in
            let now = clock.now
            log.beats[node] = now
            return log.beats.filter { now.timeIntervalSince($0.value) > silentFor }.map(\.key).sorted()
        }
    }

    func forget(node: String) async throws {
        _ = log.withLock { $0.beats.removeValue(forKey: node) }
    }
}
