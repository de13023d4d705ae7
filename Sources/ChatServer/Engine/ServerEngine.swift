import ChatAPI
import Dispatch
import Foundation
import Locking

/// The server's engine: owns the lock around ``ServerCore`` and the clock, and runs each
/// operation as one atomic step (expire timers, apply, publish events). ``ChatServer``,
/// its connections and its fault handle are thin layers over it.
///
/// - Threading: every method is thread-safe; none suspends while holding the lock. Time is
///   read under the lock, so operations see non-decreasing times in the order they apply.
final class ServerEngine: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    let clock: any ServerClock
    let configuration: ServerConfiguration
    /// Guards the whole server: state, sessions and faults change together or not at all. Fair
    /// within a millisecond: a client asking again and again holds up another client by at
    /// most about 1 ms plus the holds of those who waited longer (under load without such
    /// waits, it is taken by whoever comes first, without a hand-off per request). Lock order:
    /// `LockRank.serverCore`: after a connection's lock, before the store's locks and the
    /// clock's.
    let core: FairLock<ServerCore>
    /// Where changes are written (`nil`: in memory only). Lock order: ``core``, then the
    /// store's own locks; the store never takes ``core``.
    let store: (any ServerStore)?
    /// Where requests and console calls go (see ``ChangeLog``): applied inline on a single
    /// node, through the shared log on a node of a cluster (whose replica is then also
    /// ``store``).
    let log: ChangeLog
    /// On a node of a cluster, its side of the change log; `nil` on a single node.
    var replica: ClusterReplica? { log.replica }
    /// Where what the server could not do is reported: its replica's on a node of a cluster.
    var diagnostics: ServerDiagnostics { replica?.diagnostics ?? ownDiagnostics }
    private let ownDiagnostics = ServerDiagnostics()
    /// The identity of the server's history (``ChatAPI/ConnectResult/epoch``): the store's, or
    /// drawn at start for an in-memory server.
    let epoch: String
    /// Wakes the engine at its deadlines (`nil` with a clock that tells of its advances). Lock
    /// order: a leaf (the timer is armed after it is released; see `LockRank`).
    private let wakeUps = Lock<WakeUpTimer?>(nil, rank: .leaf)
    /// Whether the fault plan holds a request fault; written under ``core`` only, so it changes
    /// in the order the plan does.
    let requestFaultsArmed = AtomicValue(false)
    /// Requests' first holds of ``core`` run one after another without a thread blocked on the
    /// lock for each (see ``RequestCombiner``).
    let requests = RequestCombiner<Result<(result: Outcome, ticket: Int), ChatError>>()

    /// A copy of the state as it is now, taken under the lock: for tests (through `@testable`,
    /// also from the `Server/` package, where the lock's `package` methods are out of reach).
    var currentState: ServerState { core.withLock { $0.state } }

    /// An in-memory engine.
    init(clock: any ServerClock, configuration: ServerConfiguration) {
        self.clock = clock
        self.configuration = configuration
        core = FairLock(ServerCore(configuration: configuration), rank: .serverCore)
        store = nil
        log = .local
        epoch = ServerEpoch.text(ServerEpoch.random())
        startWakeUps()
    }

    /// An engine on `store`, whose state `core` was restored from it (messages attached).
    init(clock: any ServerClock, configuration: ServerConfiguration, store: any ServerStore, restored core: ServerCore)
    {
        self.clock = clock
        self.configuration = configuration
        var core = core
        core.state.hasArchivedHistory = true
        self.core = FairLock(core, rank: .serverCore)
        self.store = store
        log = .local
        epoch = store.epoch
        startWakeUps()
        // Deadlines restored from the file (mutes, rate limits) are woken for too.
        if let next = self.core.withLock({ $0.nextDeadline }) { wakeUps.withLock { $0 }?.arm(at: next) }
    }

    /// A node of a cluster whose state `core` was restored from the log's tables (messages
    /// attached), at log position `position`, with the service's connections and every device's
    /// event count; ``ClusterReplica/catchUp(_:)`` then applies the entries after it.
    init(
        clock: any ServerClock, configuration: ServerConfiguration, replica: ClusterReplica, restored core: ServerCore,
        position: Int, connections: ClusterConnections, deviceEvents: [DeviceKey: Int]
    ) {
        self.clock = clock
        self.configuration = configuration
        var core = core
        core.state.hasArchivedHistory = true
        core.cluster = ClusterCore(nodeId: replica.nodeId, position: position, connections: connections)
        core.hub.countDevices(restoring: deviceEvents)
        for (device, connection) in connections.byDevice where !connection.reading.isEmpty {
            core.state.restoreReading(of: device, in: connection.reading)
        }
        _ = core.state.takeReadingChanges()
        // A restored user is online while a device of theirs is connected to some node.
        for userId in Set(connections.byDevice.keys.map(\.userId)) {
            core.state.users[userId]?.isOnline = true
        }
        self.core = FairLock(core, rank: .serverCore)
        store = replica.store
        log = .shared(replica)
        epoch = replica.epoch
        startWakeUps()
    }

    private func startWakeUps() {
        guard clock.needsWakeUps else { return }
        wakeUps.withLock {
            $0 = WakeUpTimer(clock: clock) { [weak self] in
                guard let self else { return nil }
                if self.replica != nil { return self.tickIfDue() }
                return self.withCore { core -> Date? in
                    let now = self.clock.now
                    core.housekeep(now: now)
                    _ = core.takeNewDeadline()
                    // A deadline that housekeeping could not end (an event held for a device
                    // that is not connected) waits for other traffic, never spins.
                    return core.nextDeadline.flatMap { $0 > now ? $0 : nil }
                }.result
            }
        }
    }

    /// Runs `body` with the lock held and hands what it changed to the store (or forgets it,
    /// without one). Returns `body`'s result and the storage ticket a response waits for.
    @discardableResult
    func withCore<Result, Failure: Error>(
        _ body: (inout ServerCore) throws(Failure) -> Result
    ) throws(Failure) -> (result: Result, ticket: Int) {
        var deadline: Date?
        var wakes: [EventMailbox.Wake] = []
        var detaches: [(DeviceKey, Int)] = []
        defer {
            // Readers of the events posted are woken once the lock is released.
            for wake in wakes { wake.run() }
            if let deadline { wakeUps.withLock { $0 }?.arm(at: deadline) }
            if !detaches.isEmpty { logDetaches(detaches) }
        }
        return try core.withLock { (core: inout ServerCore) throws(Failure) -> (Result, Int) in
            core.hub.deferWakes()
            defer {
                if store == nil { core.discardStorageChanges() }
                deadline = core.takeNewDeadline()
                wakes = core.hub.takeWakes()
                // A node of a cluster logs its connections' ends once the lock is released.
                if core.cluster != nil { detaches = core.cluster!.takeDetaches() }
            }
            let result: Result
            do throws(Failure) {
                result = try body(&core)
            } catch {
                // Housekeeping may have changed the state before `body` threw.
                if let store { _ = store.enqueue(core.takeStorageChanges()) }
                throw error
            }
            return (result, store?.enqueue(core.takeStorageChanges()) ?? 0)
        }
    }

    /// Returns once the changes up to `ticket` are on disk (at once without a store).
    ///
    /// - Throws: `unavailable` when their commit failed.
    func written(_ ticket: Int) async throws(ChatError) {
        guard let store, ticket > 0 else { return }
        try await store.waitUntilWritten(ticket)
    }

    /// Runs `body` atomically at the clock's current time, after expiring what has expired,
    /// and publishes the events of the changes it made. Its changes are handed to the store but
    /// not waited for (see ``performDurably(_:)``).
    ///
    /// - Throws: `unavailable` once the server is closed; what `body` throws (`body` changes
    ///   nothing when it throws).
    @discardableResult
    func perform<Result>(_ body: (inout ServerState, Date) throws(ChatError) -> Result) throws(ChatError) -> Result {
        try performReturningTicket(body).result
    }

    /// Runs a console call as the change log's entry (see ``ChangeLog``): inline on a single
    /// node, returning once its change is written; through the shared log on a node of a
    /// cluster, returning once it applied here.
    ///
    /// - Throws: `unavailable` once the server is closed or the write failed; the call's error.
    func console(_ call: ConsoleCall) async throws(ChatError) -> ChangeOutcome {
        guard let replica else {
            let (outcome, ticket) = try withCore { (core: inout ServerCore) throws(ChatError) -> ChangeOutcome in
                if core.isClosed { throw Self.closedError }
                let now = clock.now
                core.housekeep(now: now)
                return try core.apply(call, now: now)
            }
            try await written(ticket)
            return outcome
        }
        if core.withLock({ $0.isClosed }) { throw Self.closedError }
        return try await replica.submit(.console(call), time: clock.now)
    }

    private func performReturningTicket<Result>(
        _ body: (inout ServerState, Date) throws(ChatError) -> Result
    ) throws(ChatError) -> (result: Result, ticket: Int) {
        try withCore { (core: inout ServerCore) throws(ChatError) -> Result in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            core.housekeep(now: now)
            defer { core.publishEmissions(now: now) }
            return try body(&core.state, now)
        }
    }

    static let closedError = ChatError.unavailable("the server is closed")

    /// Reads the state at the clock's current time (after expiring what has expired).
    func read<Result>(_ body: (ServerState, Date) -> Result) -> Result {
        withCore { core in
            let now = clock.now
            core.housekeep(now: now)
            return body(core.state, core.stateTime(at: now))
        }.result
    }

    /// Expires what has expired and releases late events; run on every clock advance.
    func housekeep() {
        withCore { $0.housekeep(now: clock.now) }
        if replica != nil { _ = tickIfDue() }
    }

    /// On a node of a cluster: logs a tick when a deadline has passed (timers expire as it
    /// applies, on every node); returns when to look again.
    private func tickIfDue() -> Date? {
        guard let replica else { return nil }
        let now = clock.now
        guard let next = core.withLock({ $0.nextDeadline }) else { return nil }
        guard next <= now else { return next }
        replica.post(.tick, time: now)
        return now + 0.25
    }

    /// Ends every connection (`.disconnected(.connectionLost(.unavailable))`), refuses every
    /// later operation with `unavailable`, writes what is queued and releases the store.
    /// Idempotent.
    func close() async {
        withCore { core in
            guard !core.isClosed else { return }
            core.isClosed = true
            let now = clock.now
            for (device, linkId) in core.hub.connectedDevices {
                core.detach(device, linkId: linkId, reason: .connectionLost(Self.closedError), now: now)
            }
        }
        wakeUps.withLock { $0 }?.cancel()
        if let replica {
            await replica.close(nodeDownAt: clock.now)
            return
        }
        await store?.close()
    }
}
