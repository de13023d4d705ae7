import ChatAPI
import Dispatch
import Foundation
import Locking

/// The server's storage: owns the lock around ``ServerCore`` and the clock, and runs each
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
    /// The identity of the server's history (``ChatAPI/ConnectResult/epoch``): the store's, or
    /// drawn at start for an in-memory server.
    let epoch: String
    /// Wakes the engine at its deadlines (`nil` with a clock that tells of its advances). Lock
    /// order: a leaf (the timer is armed after it is released; see `LockRank`).
    private let wakeUps = Lock<WakeUpTimer?>(nil, rank: .leaf)
    /// Whether the fault plan holds a request fault; written under ``core`` only, so it changes
    /// in the order the plan does.
    private let requestFaultsArmed = AtomicValue(false)
    /// Requests' first holds of ``core`` run one after another without a thread blocked on the
    /// lock for each (see ``RequestCombiner``).
    private let requests = RequestCombiner<Result<(result: Outcome, ticket: Int), ChatError>>()

    /// A copy of the state as it is now, taken under the lock: for tests (through `@testable`,
    /// also from the `Server/` package, where the lock's `package` methods are out of reach).
    var currentState: ServerState { core.withLock { $0.state } }

    /// An in-memory engine.
    init(clock: any ServerClock, configuration: ServerConfiguration) {
        self.clock = clock
        self.configuration = configuration
        core = FairLock(ServerCore(configuration: configuration), rank: .serverCore)
        store = nil
        epoch = ServerEpoch.text(ServerEpoch.random())
        startWakeUps()
    }

    /// An engine on `store`, starting from what it holds.
    ///
    /// - Throws: the store's `ChatError` when it cannot be read.
    init(clock: any ServerClock, configuration: ServerConfiguration, store: any ServerStore) throws(ChatError) {
        self.clock = clock
        self.configuration = configuration
        // The state is rebuilt on another thread while this one reads the messages.
        let stored = try store.loadState()
        let channelInfos = stored.channels.map(\.info)
        let rebuilt = Lock<ServerCore?>(nil, rank: .leaf)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let core = ServerCore(configuration: configuration, restoring: stored)
            rebuilt.withLock { $0 = core }
        }
        let messages = Result { () throws(ChatError) in try store.loadMessages(of: channelInfos) }
        group.wait()
        var core = rebuilt.withLock { $0.take()! }
        core.state.attach(try messages.get(), to: channelInfos.map(\.channelId))
        core.state.archive = store
        self.core = FairLock(core, rank: .serverCore)
        self.store = store
        epoch = store.epoch
        startWakeUps()
        // Deadlines restored from the file (mutes, rate limits) are woken for too.
        if let next = self.core.withLock({ $0.nextDeadline }) { wakeUps.withLock { $0 }?.arm(at: next) }
    }

    private func startWakeUps() {
        guard clock.needsWakeUps else { return }
        wakeUps.withLock {
            $0 = WakeUpTimer(clock: clock) { [weak self] in
                guard let self else { return nil }
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
    private func withCore<Result, Failure: Error>(
        _ body: (inout ServerCore) throws(Failure) -> Result
    ) throws(Failure) -> (result: Result, ticket: Int) {
        var deadline: Date?
        var wakes: [EventMailbox.Wake] = []
        defer {
            // Readers of the events posted are woken once the lock is released.
            for wake in wakes { wake.run() }
            if let deadline { wakeUps.withLock { $0 }?.arm(at: deadline) }
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

    /// ``perform(_:)``, returning once the change is written: what a console call
    /// acknowledges.
    func performDurably<Result: Sendable>(
        _ body: (inout ServerState, Date) throws(ChatError) -> Result
    ) async throws(ChatError) -> Result {
        let (result, ticket) = try performReturningTicket(body)
        try await written(ticket)
        return result
    }

    private func performReturningTicket<Result>(
        _ body: (inout ServerState, Date) throws(ChatError) -> Result
    ) throws(ChatError) -> (result: Result, ticket: Int) {
        try withCore { (core: inout ServerCore) throws(ChatError) -> Result in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            core.housekeep(now: now)
            defer { core.publishOutbox(now: now) }
            return try body(&core.state, now)
        }
    }

    static let closedError = ChatError.unavailable("the server is closed")

    /// Reads the state at the clock's current time (after expiring what has expired).
    func read<Result>(_ body: (ServerState, Date) -> Result) -> Result {
        withCore { core in
            let now = clock.now
            core.housekeep(now: now)
            return body(core.state, now)
        }.result
    }

    /// Expires what has expired and releases late events; run on every clock advance.
    func housekeep() {
        withCore { $0.housekeep(now: clock.now) }
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
        await store?.close()
    }

    // MARK: Connections

    /// Opens a connection of `device`, ending `replacing` (this transport's previous
    /// connection) first, registering the user on first connect.
    ///
    /// - Throws: `invalidArgument` (`userId`, `deviceId`); an injected connect failure.
    func connect(
        _ device: DeviceKey, replacing previous: UInt64?, mailbox: EventMailbox,
        interrupt: (@Sendable (DisconnectReason) -> Void)? = nil, resumingAfter sequence: Int?
    ) throws(ChatError) -> (result: ConnectResult, linkId: UInt64, ticket: Int) {
        try InputCheck.id(device.userId, field: "userId")
        try InputCheck.id(device.deviceId, field: "deviceId")
        let ((result, linkId), ticket) = try withCore { (core: inout ServerCore) throws(ChatError) -> (ConnectResult, UInt64) in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            if let error = core.faults.takeConnectFailure(for: device) { throw error }
            core.housekeep(now: now)
            try Self.checkDeviceCap(of: device, in: core)
            if let previous {
                core.detach(device, linkId: previous, reason: .requested, now: now, updatingPresence: false)
            }
            core.state.ensureUser(device.userId, now: now)
            let attachment = core.hub.attach(
                device, mailbox: mailbox, interrupt: interrupt, resumingAfter: sequence, now: now)
            core.updatePresence(of: device.userId, now: now)
            core.disconnectSlowDevices(now: now)  // a replay longer than the pending limit
            let result = ConnectResult(
                status: attachment.status, currentUser: core.state.users[device.userId]!,
                lastSequence: attachment.lastSequence, epoch: epoch)
            return (result, attachment.linkId)
        }
        return (result, linkId, ticket)
    }

    /// - Throws: `limitExceeded` when the user has ``ServerConfiguration/maxDevicesPerUser``
    ///   other devices connected (this device's own connection does not count: it is replaced).
    private static func checkDeviceCap(of device: DeviceKey, in core: ServerCore) throws(ChatError) {
        guard let cap = core.state.configuration.maxDevicesPerUser else { return }
        let others = core.hub.connectedDeviceCount(of: device.userId) - (core.hub.linkId(of: device) == nil ? 0 : 1)
        if others >= cap {
            throw .limitExceeded("user '\(device.userId)' has \(others) devices connected; the limit is \(cap)")
        }
    }

    /// Whether a connect of `device` would pass the device cap now: what a network front asks
    /// before it upgrades a connection.
    ///
    /// - Throws: `limitExceeded` as ``connect(_:replacing:mailbox:interrupt:resumingAfter:)`` would.
    func checkDeviceCap(of device: DeviceKey) throws(ChatError) {
        try core.withLock { (core: inout ServerCore) throws(ChatError) in try Self.checkDeviceCap(of: device, in: core) }
    }

    /// Ends connection `linkId` of `device` (no effect if it is not the current one).
    func disconnect(_ device: DeviceKey, linkId: UInt64, reason: DisconnectReason) {
        withCore { $0.detach(device, linkId: linkId, reason: reason, now: clock.now) }
    }

    /// Performs a request of connection `linkId`, which must still be the device's current one.
    /// The response is stamped, under the same lock, with the device's last event sequence and
    /// the server's revision once the request's own events are queued: the events it caused are
    /// at or before its position, and nothing that happens later is.
    ///
    /// With a store, the response comes once the request's changes (and every change before
    /// them) are written.
    ///
    /// - Throws: `unavailable` when the connection has ended or the write failed; else the
    ///   request's error.
    func handle(_ request: ChatRequest, from device: DeviceKey, linkId: UInt64) async throws(ChatError) -> ResponseEnvelope {
        let firstHold: Result<(result: Outcome, ticket: Int), ChatError>
        if requests.tryCombining() {
            // Nobody else's request runs: this one runs here, then whatever queued meanwhile.
            firstHold = Result { () throws(ChatError) in try handleFirstHold(of: request, from: device, linkId: linkId) }
            requests.finishCombining()
        } else {
            firstHold = await requests.run { [self] in
                Result { () throws(ChatError) in try handleFirstHold(of: request, from: device, linkId: linkId) }
            }
        }
        let (outcome, ticket) = try firstHold.get()
        switch outcome {
        case .done(let envelope):
            try await written(ticket)
            return envelope
        case .scanning(let scan):
            return try await finishScan(scan, of: request, from: device, linkId: linkId)
        }
    }

    /// A request's first hold of the lock: all of it but a long scan's later steps.
    private func handleFirstHold(
        of request: ChatRequest, from device: DeviceKey, linkId: UInt64
    ) throws(ChatError) -> (result: Outcome, ticket: Int) {
        try withCore { (core: inout ServerCore) throws(ChatError) -> Outcome in
            if core.isClosed { throw Self.closedError }
            let now = clock.now
            guard core.hub.linkId(of: device) == linkId else {
                throw .unavailable("the connection of device '\(device.deviceId)' has ended")
            }
            core.housekeep(now: now)
            do throws(ServerLimits.Refusal) {
                try core.limits.admit(request, from: device, now: now)
            } catch {
                switch error {
                case .refuse(let error):
                    throw error
                case .refuseAndDisconnect(let error):
                    core.detach(device, linkId: linkId, reason: .connectionLost(error), now: now)
                    throw error
                }
            }
            if case .queryChannels(let query, let cursor) = request {
                // A query that must test many channels runs in steps (see ``ChannelScan``).
                let plan = try core.state.planChannelQuery(
                    query, after: cursor, by: .user(device.userId), now: now, step: configuration.channelsPerScanStep)
                switch plan {
                case .answered(let page):
                    core.limits.spend(after: request, by: device.userId, created: false, now: now)
                    return .done(core.envelope(for: device, ChatResponse.channels(page)))
                case .scanning(let scan):
                    return .scanning(scan)
                }
            }
            let response: ChatResponse
            do {
                defer { core.publishOutbox(now: now) }
                let channelCount = core.state.channels.count
                response = try core.state.handle(request, from: device, now: now)
                core.limits.spend(
                    after: request, by: device.userId, created: core.state.channels.count > channelCount, now: now)
            }
            return .done(core.envelope(for: device, response))
        }
    }

    /// What the first hold of a request ends with.
    private enum Outcome: Sendable {
        case done(ResponseEnvelope)
        case scanning(ChannelScan)
    }

    /// Runs a channel query's scan a step per hold of the lock (others run between steps), then
    /// answers it as of the last hold.
    private func finishScan(
        _ scan: ChannelScan, of request: ChatRequest, from device: DeviceKey, linkId: UInt64
    ) async throws(ChatError) -> ResponseEnvelope {
        var scan = scan
        let step = configuration.channelsPerScanStep
        while !scan.isComplete {
            await Task.yield()
            scan = try withCore { (core: inout ServerCore) throws(ChatError) -> ChannelScan in
                try Self.checkStillConnected(device, linkId: linkId, in: core)
                var scan = scan
                scan.step(in: core.state, limit: step)
                return scan
            }.result
        }
        let (envelope, ticket) = try withCore { (core: inout ServerCore) throws(ChatError) -> ResponseEnvelope in
            try Self.checkStillConnected(device, linkId: linkId, in: core)
            let now = clock.now
            let page: Page<Channel>
            if let finished = scan.finish(in: core.state) {
                page = finished
                #if DEBUG
                    // The steps' page equals the one a single hold gives now.
                    let reference = try core.state.queryChannels(scan.query, after: scan.cursor, by: scan.caller, now: now)
                    assert(
                        finished.items.map(\.channelId) == reference.items.map(\.channelId) && finished.hasNext == reference.hasNext,
                        "a stepped scan's page differs from a single hold's: \(finished.items.map(\.channelId)) vs \(reference.items.map(\.channelId))")
                #endif
            } else {
                page = try core.state.queryChannels(scan.query, after: scan.cursor, by: scan.caller, now: now)
            }
            core.limits.spend(after: request, by: device.userId, created: false, now: now)
            return core.envelope(for: device, ChatResponse.channels(page))
        }
        try await written(ticket)
        return envelope
    }

    /// - Throws: `unavailable` when the server closed or the device's connection ended.
    private static func checkStillConnected(_ device: DeviceKey, linkId: UInt64, in core: ServerCore) throws(ChatError) {
        if core.isClosed { throw closedError }
        guard core.hub.linkId(of: device) == linkId else {
            throw .unavailable("the connection of device '\(device.deviceId)' has ended")
        }
    }

    /// Consumes the request fault armed for `device`, if any. Takes the lock only while some
    /// request fault is armed (see ``armFaults(_:)``): a request holds it once, not twice.
    func takeRequestFault(for device: DeviceKey) -> FaultPlan.RequestFault? {
        guard requestFaultsArmed.load() else { return nil }
        return core.withLock { core in
            defer { requestFaultsArmed.store(core.faults.hasRequestFaults) }
            return core.faults.takeRequestFault(for: device)
        }
    }

    /// Changes the fault plan.
    func armFaults(_ body: (inout FaultPlan) -> Void) {
        core.withLock { core in
            body(&core.faults)
            requestFaultsArmed.store(core.faults.hasRequestFaults)
        }
    }
}
