import ChatAPI
import Foundation
import Locking

/// Reads every node's entries of the cluster's change log in position order and hands them to
/// the engine (``ServerEngine/apply(_:)``): on every wake-up of the log (a notification), after
/// every append of this node (``ring()``), and every ``pollInterval`` of the engine's clock — a
/// lost notification or a lost connection costs latency, never an entry. It knows how far this
/// node has applied, and lets callers wait for a position (the read barrier,
/// ``awaitCommitted()``) without polling.
///
/// - Threading: thread-safe. Lock order: a leaf.
final class LogFollower: Sendable {
    let log: any ServerChangeLog
    private let clock: any ServerClock

    /// How often the log is read without a wake-up, in seconds of the engine's clock.
    static let pollInterval: TimeInterval = 0.25
    /// The most entries read at once.
    static let readLimit = 2_000
    /// The most entries applied in one hold of the engine's lock: a node catching up on a long
    /// read lets requests in between slices.
    static let applySlice = 64

    /// Applies `entries` a slice at a time (``applySlice``).
    private func apply(_ entries: [ServerLogEntry], to engine: ServerEngine) {
        var start = 0
        while start < entries.count {
            let end = min(entries.count, start + Self.applySlice)
            engine.apply(Array(entries[start..<end]))
            start = end
        }
    }
    /// How long a read barrier (``awaitCommitted()``) waits for this node to apply what was committed.
    static let readBarrierTimeout: TimeInterval = 10

    private struct PositionWaiter {
        var position: Int
        var deadline: Date
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var applied: Int
        var appliedTime = Date.distantPast
        var waiters: [PositionWaiter] = []
        var closed = false
        /// Wakes the reader.
        var doorbell: AsyncStream<Void>.Continuation?
    }

    private let state: Lock<State>

    init(log: any ServerChangeLog, clock: any ServerClock, position: Int) {
        self.log = log
        self.clock = clock
        state = Lock(State(applied: position), rank: .leaf)
    }

    /// The position of the last entry applied here.
    var appliedPosition: Int { state.withLock { $0.applied } }

    /// The time of the last entry applied here.
    var appliedTime: Date { state.withLock { $0.appliedTime } }

    /// Called by the engine under its lock once entries through `position` are applied (at
    /// `time`): wakes whoever waits for a position up to it.
    func noteApplied(through position: Int, at time: Date) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.applied = position
            state.appliedTime = time
            let ready = state.waiters.filter { $0.position <= position }
            state.waiters.removeAll { $0.position <= position }
            return ready.map(\.continuation)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    // MARK: Reading

    /// Applies every committed entry (at start, before the node serves).
    ///
    /// - Throws: ``FellBehind`` when the log no longer keeps the entries after the tables this
    ///   node loaded (another node's snapshot moved on and the log was trimmed meanwhile: load
    ///   the tables again); `unavailable` when the log cannot be read.
    func catchUp(_ engine: ServerEngine) async throws(LogFollower.CatchUpError) {
        while true {
            let entries: [ServerLogEntry]
            do {
                entries = try await log.entries(after: appliedPosition, limit: Self.readLimit)
            } catch {
                throw .failed(.unavailable("the change log cannot be read: \(error)"))
            }
            if let gap = gap(before: entries) { throw .fellBehind(gap) }
            if entries.isEmpty { return }
            apply(entries, to: engine)
        }
    }

    /// Why ``catchUp(_:)`` failed.
    enum CatchUpError: Error {
        case fellBehind(FellBehind)
        case failed(ChatError)
    }

    /// A node needs an entry the log no longer keeps (it was trimmed: every live node had applied
    /// it and the tables held it).
    struct FellBehind: Error, CustomStringConvertible {
        /// The position the node needs next, and the first the log kept.
        var needed: Int
        var first: Int
        var description: String {
            "this node fell behind the change log: it needs the entry at position \(needed), and the log keeps them from position \(first) on (the entries before were removed once every live node had applied them and the tables held them); restart it to load the tables"
        }
    }

    /// The gap between what this node applied and `entries`, if they do not follow it.
    private func gap(before entries: [ServerLogEntry]) -> FellBehind? {
        let needed = appliedPosition + 1
        guard let first = entries.first, first.position > needed else { return nil }
        return FellBehind(needed: needed, first: first.position)
    }

    /// Starts reading the log for `engine`: on notifications, on ``ring()``, and every
    /// ``pollInterval`` (when `onPoll` runs too). Returns the tasks it started.
    func start(_ engine: ServerEngine, onPoll: @escaping @Sendable () -> Void) -> [Task<Void, Never>] {
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
        let poll = Task { [clock] in
            while !Task.isCancelled, !self.isClosed {
                try? await clock.sleep(until: clock.now + Self.pollInterval)
                ring.yield()
                self.expireWaiters()
                onPoll()
            }
        }
        return [reader, notifications, poll]
    }

    private var isClosed: Bool { state.withLock { $0.closed } }

    private func readNewEntries(_ engine: ServerEngine) async {
        while true {
            let entries: [ServerLogEntry]
            do {
                entries = try await log.entries(after: appliedPosition, limit: Self.readLimit)
            } catch {
                return
            }
            if let gap = gap(before: entries) {
                // The entries this node needs are gone: it cannot go on (it would diverge), and
                // must load the tables again.
                engine.halt(because: gap.description)
                return
            }
            if entries.isEmpty { return }
            apply(entries, to: engine)
            if entries.count < Self.readLimit { return }
        }
    }

    /// Wakes the reader; `false` once the node is closed.
    @discardableResult
    func ring() -> Bool {
        guard let ring = state.withLock({ $0.closed ? nil : $0.doorbell }) else { return false }
        ring.yield()
        return true
    }

    // MARK: Waiting for a position

    /// A read barrier: returns once this node has applied every entry committed before the
    /// call, so what it then reads from its state is at least as new as any answer any node gave
    /// before.
    ///
    /// - Throws: `unavailable` when the log cannot be read or the node does not catch up within
    ///   ``readBarrierTimeout``.
    func awaitCommitted() async throws(ChatError) {
        let head: Int
        do {
            head = try await log.head()
        } catch {
            throw .unavailable("the change log cannot be read: \(error)")
        }
        // The entries up to the head are committed: read them now rather than at the next
        // notification or poll.
        if appliedPosition < head { ring() }
        guard await waitUntilApplied(head) else {
            throw .unavailable("this node has not caught up with the change log")
        }
    }

    /// Returns `true` once this node has applied through `position`; `false` when it has not
    /// within ``readBarrierTimeout`` of the clock, or the node closed.
    func waitUntilApplied(_ position: Int) async -> Bool {
        let deadline = clock.now + Self.readBarrierTimeout
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if state.applied >= position { return true }
                if state.closed { return false }
                state.waiters.append(PositionWaiter(position: position, deadline: deadline, continuation: continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Fails the position waiters whose deadline has passed (every poll).
    private func expireWaiters() {
        let now = clock.now
        let expired = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            let expired = state.waiters.filter { $0.deadline <= now }
            state.waiters.removeAll { $0.deadline <= now }
            return expired.map(\.continuation)
        }
        for waiter in expired { waiter.resume(returning: false) }
    }

    /// Stops reading; position waiters are told `false`. Idempotent.
    func stop() {
        let (waiters, ring) = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return (state.waiters.map(\.continuation), state.doorbell)
        }
        for waiter in waiters { waiter.resume(returning: false) }
        ring?.finish()
    }
}
