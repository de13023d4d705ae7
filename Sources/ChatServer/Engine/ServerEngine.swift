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
    /// Where every change goes (see ``ChangeLog``): applied inline on a single node
    /// (``LocalChangeLog``), through the shared log on a node of a cluster (``ClusterReplica``,
    /// which is then also ``store``).
    let log: any ChangeLog
    /// On a node of a cluster, its side of the change log, for its figures (lag, entries kept,
    /// why it halted); `nil` on a single node.
    var replica: ClusterReplica? { log as? ClusterReplica }
    /// Where what the server could not do is reported: its change log's.
    var diagnostics: ServerDiagnostics { log.diagnostics }
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
        let epoch = ServerEpoch.text(ServerEpoch.random())
        var core = ServerCore(configuration: configuration)
        core.applied = ServerCore.localLog(epoch: epoch)
        self.core = FairLock(core, rank: .serverCore)
        store = nil
        log = LocalChangeLog()
        self.epoch = epoch
        startWakeUps()
    }

    /// An engine on `store`, whose state `core` was restored from it (messages attached).
    init(clock: any ServerClock, configuration: ServerConfiguration, store: any ServerStore, restored core: ServerCore)
    {
        self.clock = clock
        self.configuration = configuration
        var core = core
        core.state.hasArchivedHistory = true
        core.applied = ServerCore.localLog(epoch: store.epoch)
        self.core = FairLock(core, rank: .serverCore)
        self.store = store
        log = LocalChangeLog()
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
        position: Int, connections: ConnectionTable, deviceEvents: [DeviceKey: Int]
    ) {
        self.clock = clock
        self.configuration = configuration
        var core = core
        core.state.hasArchivedHistory = true
        core.applied = AppliedLog(
            nodeId: replica.nodeId, epoch: replica.epoch, position: position, connections: connections)
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
        log = replica
        epoch = replica.epoch
        startWakeUps()
    }

    private func startWakeUps() {
        guard clock.needsWakeUps else { return }
        wakeUps.withLock {
            $0 = WakeUpTimer(clock: clock) { [weak self] in
                guard let self else { return nil }
                return self.log.wakeUp(self)
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
        var owed: [ChangeEntry.Kind] = []
        defer {
            // Readers of the events posted are woken once the lock is released.
            for wake in wakes { wake.run() }
            if let deadline { wakeUps.withLock { $0 }?.arm(at: deadline) }
            // What the node owes the log (a cluster's node logs its connections' ends now).
            if !owed.isEmpty { log.post(owed, time: clock.now) }
        }
        return try core.withLock { (core: inout ServerCore) throws(Failure) -> (Result, Int) in
            core.hub.deferWakes()
            defer {
                if store == nil { core.discardStorageChanges() }
                deadline = core.takeNewDeadline()
                wakes = core.hub.takeWakes()
            }
            let result: Result
            do throws(Failure) {
                result = try body(&core)
            } catch {
                // Housekeeping may have changed the state before `body` threw.
                owed = log.settle(&core, now: clock.now)
                if let store { _ = store.enqueue(core.takeStorageChanges()) }
                throw error
            }
            owed = log.settle(&core, now: clock.now)
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
        try await log.commit(.console(call), on: self) { (core, _, now) throws(ChatError) in
            if core.isClosed { throw Self.closedError }
            housekeep(&core, now: now)
        }
    }

    /// What every operation does first, under the lock: time has passed to `now` (the log
    /// expires timers its way: ``ChangeLog/advance(_:to:)``), held events due are released, logs
    /// swept, too slow connections ended.
    func housekeep(_ core: inout ServerCore, now: Date) {
        log.advance(&core, to: now)
        core.housekeep(now: now)
    }

    /// The time the state is read at when the clock says `now` (``ChangeLog/stateTime(of:at:)``).
    func stateTime(of core: ServerCore, at now: Date) -> Date {
        log.stateTime(of: core.applied, at: now)
    }

    private func performReturningTicket<Result>(
        _ body: (inout ServerState, Date) throws(ChatError) -> Result
    ) throws(ChatError) -> (result: Result, ticket: Int) {
        try withCore { (core: inout ServerCore) throws(ChatError) -> Result in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            housekeep(&core, now: now)
            defer { core.publishEmissions(now: now) }
            return try body(&core.state, now)
        }
    }

    static let closedError = ChatError.unavailable("the server is closed")

    /// Reads the state at the clock's current time (after expiring what has expired).
    func read<Result>(_ body: (ServerState, Date) -> Result) -> Result {
        withCore { core in
            let now = clock.now
            housekeep(&core, now: now)
            return body(core.state, stateTime(of: core, at: now))
        }.result
    }

    /// Expires what has expired and releases late events (``ChangeLog/wakeUp(_:)``); run on
    /// every clock advance.
    func housekeep() {
        _ = log.wakeUp(self)
    }

    /// Ends every connection (`.disconnected(.connectionLost(.unavailable))`), refuses every
    /// later operation with `unavailable`, writes what is queued and releases the store.
    /// Idempotent.
    func close() async {
        withCore { core in
            guard !core.isClosed else { return }
            core.isClosed = true
            for (device, linkId) in core.hub.connectedDevices {
                core.detach(device, linkId: linkId, reason: .connectionLost(Self.closedError))
            }
        }
        wakeUps.withLock { $0 }?.cancel()
        await log.close(self)
    }
}
