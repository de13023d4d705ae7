import ChatAPI
import Foundation
import Locking

/// A node's side of a cluster's change log (``ServerChangeLog``): it writes the node's entries
/// (many per transaction: group commit), reads every node's entries in order and hands them to
/// the engine (``ServerEngine/apply(_:)``), answers the node's callers once their entries apply,
/// keeps the stored snapshot moving, and beats for the node.
///
/// It is also the engine's ``ServerStore``: the changes the engine makes while applying entries
/// are kept, by position, until some node's append writes them into the tables (any node writes
/// what it applied beyond the stored snapshot, in the transaction of its next append).
///
/// Reading: on every wake-up of the log (a notification), after every append of this node, and
/// every ``pollInterval`` — a lost notification or a lost connection costs latency, never an
/// entry.
///
/// - Threading: thread-safe. Lock order: `LockRank.storeWriter`, after the engine's lock.
final class ClusterReplica: ServerStore {
    let nodeId: String
    let log: any ServerChangeLog
    let epoch: String
    /// Reads old messages from the tables.
    private let reader: DatabaseServerStore

    /// How often the log is read without a wake-up.
    static let pollInterval: Duration = .milliseconds(250)
    /// How long a caller waits for its entry to apply.
    static let applyTimeout: Duration = .seconds(10)
    /// The most entries read at once.
    static let readLimit = 2_000

    private struct Waiter {
        var continuation: CheckedContinuation<ChangeOutcome, any Error>
    }

    /// The changes applied since the stored snapshot, by the position they are current at.
    private struct Chunk {
        var through: Int
        var changes: StorageChanges
    }

    private struct State {
        var nextRef: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        /// Entries to append, with their waiter's ref (0: nobody waits).
        var queue: [(ref: UInt64, bytes: [UInt8])] = []
        var isAppending = false
        var chunks: [Chunk] = []
        var applied = 0
        var appliedTime = Date.distantPast
        var lastSnapshotWrite = ContinuousClock.now
        var healthy = true
        var closed = false
        /// Wakes the reader.
        var doorbell: AsyncStream<Void>.Continuation?
    }

    private let state: Lock<State>
    private let tasks = Lock<[Task<Void, Never>]>([], rank: .leaf)

    /// The number of appends committed by this node.
    var commitCount: Int { commits.withLock { $0 } }
    private let commits = Lock(0, rank: .leaf)

    init(nodeId: String, log: any ServerChangeLog, reader: DatabaseServerStore, position: Int) {
        self.nodeId = nodeId
        self.log = log
        self.reader = reader
        epoch = reader.epoch
        var initial = State()
        initial.applied = position
        state = Lock(initial, rank: .storeWriter)
    }

    var isHealthy: Bool { state.withLock { $0.healthy } }

    /// The position of the last entry applied here.
    var appliedPosition: Int { state.withLock { $0.applied } }

    /// How far behind the newest entry it has read this node is: the age of the newest entry
    /// applied when more are known to wait, else 0 (seconds).
    var lag: Double {
        state.withLock { state in
            state.queue.isEmpty && state.waiters.isEmpty ? 0 : max(0, Date().timeIntervalSince(state.appliedTime))
        }
    }

    // MARK: Starting

    /// Applies every committed entry (at start, before the node serves).
    func catchUp(_ engine: ServerEngine) async throws(ChatError) {
        while true {
            let entries: [ServerLogEntry]
            do {
                entries = try await log.entries(after: appliedPosition, limit: Self.readLimit)
            } catch {
                throw .unavailable("the change log cannot be read: \(error)")
            }
            if entries.isEmpty { return }
            engine.apply(entries)
        }
    }

    /// Starts reading the log for `engine`, and beating.
    func start(_ engine: ServerEngine) {
        let (doorbell, ring) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        state.withLock { $0.doorbell = ring }
        let wakeUps = log.wakeUps()
        let reader = Task { [weak engine] in
            for await _ in doorbell {
                guard let engine else { return }
                await self.readNewEntries(engine)
            }
        }
        let notifications = Task {
            for await _ in wakeUps { ring.yield() }
        }
        let poll = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.pollInterval)
                ring.yield()
                self.writeSnapshotIfDue()
            }
        }
        let beats = Task { [weak engine] in
            // Three beats within the silent limit: a node is named silent only when two in a
            // row were lost or late.
            let interval = Duration.seconds(self.log.silentLimit / 3)
            while !Task.isCancelled {
                if let engine { await self.beat(engine) }
                try? await Task.sleep(for: interval)
            }
        }
        tasks.withLock { $0 = [reader, notifications, poll, beats] }
    }

    private func readNewEntries(_ engine: ServerEngine) async {
        while true {
            let after = appliedPosition
            let entries: [ServerLogEntry]
            do {
                entries = try await log.entries(after: after, limit: Self.readLimit)
            } catch {
                return
            }
            if entries.isEmpty { return }
            engine.apply(entries)
            if entries.count < Self.readLimit { return }
        }
    }

    private func beat(_ engine: ServerEngine) async {
        guard let silent = try? await log.beat(node: nodeId, silentFor: log.silentLimit) else { return }
        for node in silent where node != nodeId {
            post(.nodeDown(node), time: engine.clock.now)
            try? await log.forget(node: node)
        }
    }

    /// Wakes the reader; `false` once the node is closed.
    func ringReader() -> Bool {
        guard let ring = state.withLock({ $0.closed ? nil : $0.doorbell }) else { return false }
        ring.yield()
        return true
    }

    // MARK: Writing entries

    /// A new ref for an entry a caller will wait on.
    func newRef() -> UInt64 {
        state.withLock { state in
            defer { state.nextRef += 1 }
            return state.nextRef
        }
    }

    /// Logs `kind` and returns its outcome once it applied here.
    ///
    /// - Throws: the entry's error; `unavailable` when it could not be logged or did not apply
    ///   within ``applyTimeout`` (it may still apply later).
    func submit(_ kind: ChangeEntry.Kind, ref: UInt64? = nil, time: Date) async throws(ChatError) -> ChangeOutcome {
        let ref = ref ?? newRef()
        let bytes = try ChangeEntry(node: nodeId, ref: ref, time: time, kind: kind).encoded()
        do {
            return try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<ChangeOutcome, any Error>) in
                let start = state.withLock { state -> Bool? in
                    guard !state.closed else { return nil }
                    state.waiters[ref] = Waiter(continuation: continuation)
                    state.queue.append((ref, bytes))
                    guard !state.isAppending else { return false }
                    state.isAppending = true
                    return true
                }
                switch start {
                case nil: continuation.resume(throwing: ChatError.unavailable("the server is closed"))
                case true?: Task { await self.appendQueued() }
                case false?: break
                }
                Task {
                    try? await Task.sleep(for: Self.applyTimeout)
                    self.fail([ref], with: .unavailable("the change was not applied within \(Self.applyTimeout)"))
                }
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// Logs `kind` without waiting for it.
    func post(_ kind: ChangeEntry.Kind, time: Date) {
        // Entries nobody waits for (a tick, a detach, a node down) carry no metadata: they encode.
        guard let bytes = try? ChangeEntry(node: nodeId, ref: 0, time: time, kind: kind).encoded() else { return }
        let start = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.queue.append((0, bytes))
            guard !state.isAppending else { return false }
            state.isAppending = true
            return true
        }
        if start { Task { await self.appendQueued() } }
    }

    /// The appender: commits what is queued, batch after batch, with the snapshot this node can
    /// bring forward.
    private func appendQueued() async {
        while true {
            // Let concurrent callers queue theirs first (see DatabaseServerStore.gather).
            for _ in 0..<4 { await Task.yield() }
            let batch = state.withLock { state -> [(ref: UInt64, bytes: [UInt8])] in
                defer { state.queue = [] }
                if state.queue.isEmpty { state.isAppending = false }
                return state.queue
            }
            if batch.isEmpty { return }
            do {
                try await log.append(batch.map(\.bytes), node: nodeId) { stored in try self.snapshot(after: stored) }
                commits.withLock { $0 += 1 }
                state.withLock { state in
                    state.healthy = true
                    state.lastSnapshotWrite = .now
                    state.doorbell?.yield()
                }
            } catch {
                state.withLock { $0.healthy = false }
                fail(
                    batch.map(\.ref).filter { $0 != 0 },
                    with: .unavailable("the change log cannot be written: \(error)"))
            }
        }
    }

    /// Writes the snapshot alone when this node holds changes beyond it and has not appended for
    /// a second (so the tables follow a quiet node too).
    private func writeSnapshotIfDue() {
        let due = state.withLock { state -> Bool in
            guard !state.closed, !state.isAppending, !state.chunks.isEmpty,
                ContinuousClock.now - state.lastSnapshotWrite > .seconds(1)
            else { return false }
            state.isAppending = true
            state.lastSnapshotWrite = .now
            return true
        }
        guard due else { return }
        Task {
            do {
                try await log.append([], node: nodeId) { stored in try self.snapshot(after: stored) }
                state.withLock { $0.healthy = true }
            } catch {
                state.withLock { $0.healthy = false }
            }
            let more = state.withLock { state -> Bool in
                if state.queue.isEmpty { state.isAppending = false }
                return !state.queue.isEmpty
            }
            if more { await appendQueued() }
        }
    }

    /// The rows that bring the stored snapshot from `stored` to what this node applied (`nil`
    /// when it holds nothing newer); forgets what the stored snapshot has.
    private func snapshot(after stored: Int) throws -> ServerLogSnapshot? {
        let (changes, through) = state.withLock { state -> (StorageChanges?, Int) in
            state.chunks.removeAll { $0.through <= stored }
            guard var merged = state.chunks.first?.changes else { return (nil, stored) }
            for chunk in state.chunks.dropFirst() { merged.merge(chunk.changes) }
            return (merged, state.chunks.last!.through)
        }
        guard let changes else { return nil }
        return ServerLogSnapshot(batch: try DatabaseServerStore.encode(changes), through: through)
    }

    // MARK: Applying

    /// Called by the engine under its lock once entries through `position` are applied.
    func noteApplied(through position: Int, at time: Date) {
        state.withLock { state in
            state.applied = position
            state.appliedTime = time
        }
    }

    /// Answers this node's callers whose entries applied.
    func complete(_ outcomes: [(UInt64, Result<ChangeOutcome, ChatError>)]) {
        guard !outcomes.isEmpty else { return }
        let resumed = state.withLock { state in
            outcomes.compactMap { ref, result in state.waiters.removeValue(forKey: ref).map { ($0, result) } }
        }
        for (waiter, result) in resumed { waiter.continuation.resume(with: result.mapError { $0 as any Error }) }
    }

    private func fail(_ refs: [UInt64], with error: ChatError) {
        let failed = state.withLock { state in refs.compactMap { state.waiters.removeValue(forKey: $0) } }
        for waiter in failed { waiter.continuation.resume(throwing: error) }
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
        // What is applied but not yet in the tables is newer than them.
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

    /// Tells the service this node is gone (its devices are counted offline at once), writes
    /// the snapshot, stops reading and closes the log.
    func close(nodeDownAt time: Date) async {
        _ = try? await submit(.nodeDown(nodeId), time: time)
        await close()
    }

    /// Stops reading, beating and appending at once, telling nobody (``ServerEngine/halt()``).
    func halt() {
        let (waiters, ring) = state.withLock { state in
            state.closed = true
            state.queue = []
            defer { state.waiters = [:] }
            return (Array(state.waiters.values), state.doorbell)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: ChatError.unavailable("the server is closed")) }
        ring?.finish()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    func close() async {
        let (waiters, ring) = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return (Array(state.waiters.values), state.doorbell)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: ChatError.unavailable("the server is closed")) }
        ring?.finish()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        _ = try? await log.append([], node: nodeId) { stored in try self.snapshot(after: stored) }
        await log.close()
    }
}
