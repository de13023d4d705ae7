import ChatAPI
import LiveCore
import Locking

/// The entry point of the SDK: one user's connection to a chat server through a
/// ``ChatTransport``, with the cache that keeps every live handle current.
///
/// ```swift
/// let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
/// try await client.connect()
/// let repository = ChannelRepository(client: client)
/// ```
///
/// After `connect()`, the client applies the server's events to its cache in order and exactly
/// once. If the connection drops it reconnects with backoff (``ReconnectPolicy``), resuming after
/// the last event it applied; when the server cannot replay what was missed, it reloads every
/// live list and object. Live handles keep working throughout.
///
/// Not actor-isolated; every member is thread-safe. Live handles and repositories keep their
/// client alive; the client stops its event loop when it is freed.
public final class ChatClient: Sendable {
    /// The transport this client talks through.
    public let transport: any ChatTransport
    let sync: SyncEngine
    /// The cache file, with `.sqlite` persistence.
    let store: CacheStore?
    /// The messages created on the device and not stored by the server yet, and their sender.
    let outbox: MessageOutbox
    private let connection = LiveObjectSource<ConnectionState>(snapshot: .disconnected, dataStatus: .fresh)
    /// Lock order: a leaf (see `LockRank`).
    private let session = Lock(Session(), rank: .leaf)
    private let reconnectPolicy: ReconnectPolicy
    /// Counts `disconnect()` calls, so that a reconnect under way when the user disconnects
    /// does not report itself connected over the user's disconnect.
    private let disconnects = DisconnectCounter()

    private struct Session: Sendable {
        var eventLoop: Task<Void, Never>?
        var hasConnected = false
        /// The connect under way, which concurrent `connect()` calls share, with the count of
        /// `disconnect()` calls it started after (a `connect()` that follows a later disconnect
        /// does not share it).
        var connecting: (attempt: Task<Void, any Error>, disconnects: Int)?
    }

    /// Creates a client. Nothing is sent until ``connect()``.
    ///
    /// With `.sqlite(url)`, the file is opened (and locked for this client) now, and what a
    /// fast start needs — the first pages of the lists that were open — is read now, so live
    /// handles made next show it at once (`dataStatus == .local`); the rest of the file loads
    /// in the background, before anything from the server is applied. A file that cannot be
    /// used (not a cache of ours, open in another client) makes ``connect()`` throw; a damaged
    /// cache of ours is rebuilt empty.
    /// - Parameters:
    ///   - transport: the connection to the server, e.g. `server.connection(userId:deviceId:)`.
    ///   - persistence: where the cache lives: `.inMemory` (default) or `.sqlite(url)`.
    ///   - reconnectPolicy: how to wait between reconnect attempts after the connection
    ///     drops.
    public convenience init(
        transport: any ChatTransport, persistence: Persistence = .inMemory,
        reconnectPolicy: ReconnectPolicy = .exponential
    ) {
        self.init(
            transport: transport, persistence: persistence, reconnectPolicy: reconnectPolicy,
            messageRetention: SyncEngine.defaultMessageRetention)
    }

    /// As the public initializer, with how many messages stay in memory before those of
    /// channels no live handle shows leave it (`nil`: all stay; see ``EntityCache``).
    init(
        transport: any ChatTransport, persistence: Persistence = .inMemory,
        reconnectPolicy: ReconnectPolicy = .exponential, messageRetention: Int?
    ) {
        self.transport = transport
        self.reconnectPolicy = reconnectPolicy
        switch persistence {
        case .inMemory:
            store = nil
        case .sqlite(let url, let limits):
            store = CacheStore(url: url, limits: limits)
        }
        let sync = SyncEngine(transport: transport, store: store, messageRetention: messageRetention)
        self.sync = sync
        outbox = MessageOutbox(sync: sync, userId: transport.userId, restored: store?.start.messages ?? [])
        if store != nil { Task { await sync.restore() } }
    }

    deinit {
        session.withLock { $0.eventLoop?.cancel() }
        outbox.close()
        sync.close()
        // The file is released before the last reference's release returns: a new client on
        // the same file right after opens it.
        store?.closeNow()
    }

    /// What every call of a closed client throws.
    static let closedError = ChatError.notAllowed("the client is closed; make a new ChatClient")

    /// The id of the user this client acts for.
    public var currentUserId: String { transport.userId }

    /// The user this client acts for, once connected.
    public var currentUser: User? { sync.currentUser }

    /// What live queries need to know about the user (visibility depends on it).
    var queryContext: QueryContext { sync.queryContext }

    /// The connection state, as a live value.
    public var connectionState: LiveObject<ConnectionState> { connection.object }

    /// Connects (registering the user on first connect) and starts applying events. On a fresh
    /// start it also loads every channel the user is a member of (pages of 100), so that
    /// `ChannelRepository.totalUnreadCount` is complete when this returns; live handles whose
    /// request failed before (created before `connect()`, or while offline) load again. Connecting again after
    /// ``disconnect()`` resumes where the client left off (or resyncs when the server cannot
    /// replay what was missed).
    ///
    /// Idempotent: on a connected client it returns at once, and concurrent calls share one
    /// attempt (and its outcome). A `disconnect()` that comes while it connects stands: the
    /// attempt never reports `.connected` over it and throws; a `connect()` made after that
    /// disconnect waits for the attempt to end and makes one of its own.
    /// - Throws: `ChatError.unavailable` when the server cannot be reached or ``disconnect()``
    ///   was called before the attempt finished, `ChatError.invalidArgument` for an unusable
    ///   user id.
    public func connect() async throws {
        while true {
            let disconnectsNow = disconnects.value
            let (attempt, isOurs) = session.withLock { session -> (Task<Void, any Error>, Bool) in
                if let running = session.connecting {
                    return (running.attempt, running.disconnects == disconnectsNow)
                }
                let attempt = Task { try await self.establishConnection(after: disconnectsNow) }
                session.connecting = (attempt, disconnectsNow)
                return (attempt, true)
            }
            if isOurs { return try await attempt.value }
            // An attempt from before a disconnect: it will not report itself connected.
            _ = try? await attempt.value
        }
    }

    /// Connects as ``connect()`` does, then gives the user `displayName` if their profile has
    /// another (Stream's `connectUser(userInfo:)` with a name): the name is the server's when
    /// this returns, and every live handle shows it.
    /// - Throws: what ``connect()`` throws; `ChatError.invalidArgument` for an unusable name.
    public func connect(displayName: String) async throws {
        try await connect()
        if currentUser?.displayName != displayName {
            _ = try await user(answering: .updateCurrentUser(displayName: displayName, metadata: nil))
        }
    }

    /// Connects, unless ``disconnect()`` is called after `disconnectCount` was read: then it
    /// publishes nothing over the disconnect's `.disconnected` and throws.
    private func establishConnection(after disconnectCount: Int) async throws {
        defer { session.withLock { $0.connecting = nil } }
        try sync.checkOpen()
        if connection.snapshot == .connected { return }
        if let failure = store?.failure {
            connection.publish(snapshot: .disconnected, error: failure)
            throw failure
        }
        connection.publish(snapshot: .connecting)
        await sync.restoration.wait()
        let resumeAfter =
            session.withLock { $0.hasConnected } ? await sync.appliedSequence : await sync.restoredSequence
        var overtaken = false
        do {
            try await Self.attach(transport: transport, sync: sync, resumingAfter: resumeAfter) {
                session.withLock { session in
                    session.hasConnected = true
                    if session.eventLoop == nil { session.eventLoop = startEventLoop() }
                }
                // As a reconnect does (see `reconnect`): a disconnect that came meanwhile may
                // have ended this connection, and `.connected` over it would stay for good
                // (every request failing, nothing reconnecting; seed 73912).
                overtaken = !disconnects.ifUnchanged(since: disconnectCount) { Self.publishConnected(connection) }
                return !overtaken
            }
        } catch {
            connection.publish(snapshot: .disconnected, error: error)
            throw error
        }
        if overtaken {
            // The disconnect published `.disconnected`, unless it did so before this attempt's
            // `.connecting` (no other attempt runs meanwhile, and reconnects say `.reconnecting`).
            if connection.snapshot == .connecting { connection.publish(snapshot: .disconnected) }
            throw ChatError.unavailable("disconnect() was called before this connect() finished; call connect() again")
        }
    }

    /// Waits until every event the server has queued for this client so far has been applied to
    /// the cache and published to live handles, and retries whatever failed to load (a live
    /// list or object whose request failed). Useful after another user acted, in tests and
    /// before reading a derived value. Never waits for a connection that ended: it returns when
    /// the connection drops, and without waiting for events while the client is offline (what
    /// the server queued meanwhile comes with the next connection). Always returns; it throws
    /// nothing, so after it returns check ``connectionState`` to know whether it caught up.
    public func synchronize() async {
        await applyQueuedEvents()
        await sync.retries.runAll()
        await applyQueuedEvents()
    }

    /// Waits until the events queued so far are applied — unless the connection ends meanwhile
    /// (they come, if ever, with the next connection).
    private func applyQueuedEvents() async {
        let connection = sync.endedConnectionCount
        await sync.waitUntilApplied(await transport.lastQueuedEventSequence(), unlessConnectionEndedSince: connection)
    }

    /// The cache file's problem, if it has one, naming the file: why it cannot be used (see
    /// ``init(transport:persistence:reconnectPolicy:)``; ``connect()`` throws it), or the last
    /// failed write — `.limitExceeded` for a full disk, `.invalidArgument(field: "persistence")`
    /// for a file or file system that turned read-only. `nil` with `.inMemory`, and again once a
    /// write succeeds. A failed write loses nothing: what it held is kept and written with the
    /// next batch (tried again every second), and meanwhile the file keeps the last state it
    /// held whole — a state the client really had.
    public var persistenceError: ChatError? { store?.failure ?? store?.lastError }

    /// Runs again every load that failed (live lists' pages, live objects' requests): what a
    /// controller's second `synchronize()` does after a failed one.
    func retryFailedLoads() async {
        await sync.retries.runAll()
    }

    /// Deletes every row of the cache file (on log-out, say): the next start shows nothing
    /// until the server answers, and connects afresh. What this client shows stays, and values
    /// it stores from now on are written again. Does nothing with `.inMemory` persistence.
    /// - Throws: the `ChatError` of a file that cannot be used, or of a failed write.
    public func clearPersistence() async throws {
        guard let store else { return }
        if let failure = store.failure { throw failure }
        await sync.restoration.wait()
        try await store.clear()
    }

    /// Returns once the file holds everything the caches stored before the call (and the
    /// file's contents were loaded). For tests and benchmarks.
    @_spi(Persistence) public func flushPersistence() async {
        await sync.restoration.wait()
        await sync.finishCurrentWork()
        await store?.flush()
    }

    /// What the cache file's writer has done so far (zero with `.inMemory`).
    @_spi(Persistence) public var persistenceStatistics: PersistenceStatistics {
        store?.statistics ?? PersistenceStatistics()
    }

    /// Writes what is pending and closes the cache file, so that another client can open it
    /// (a restart, in tests). The client keeps working in memory.
    @_spi(Persistence) public func closePersistence() async {
        await sync.restoration.wait()
        await sync.finishCurrentWork()
        await store?.close()
    }

    /// Ends the client: disconnects, writes what the cache has pending and releases its file
    /// (a new client on the same file opens it as soon as this returns). Afterwards
    /// ``connect()`` and every request throw `ChatError.notAllowed`; live handles keep their
    /// last state and receive nothing more. A second call returns at once. Freeing the last
    /// reference to a client does the same (without waiting for the disconnect to be sent).
    /// The outbox (`MessageRepository.createMessage`) stops sending; with the `.sqlite` cache
    /// the file keeps its messages, and the next client on the file sends them.
    public func close() async {
        guard sync.close() else { return }
        outbox.close()
        disconnects.increment()
        let loop = session.withLock { session -> Task<Void, Never>? in
            defer { session.eventLoop = nil }
            return session.eventLoop
        }
        loop?.cancel()
        await transport.disconnect()
        disconnects.increment { connection.publish(snapshot: .disconnected) }
        await sync.noConnectionComing()
        await sync.restoration.wait()
        await sync.finishCurrentWork()
        await store?.close()
    }

    /// Disconnects. Live handles keep their last state; `connect()` again to resume.
    ///
    /// Counted twice: before the transport is told (a reconnect that starts later gives up),
    /// and again — with `.disconnected` published under the count's lock — once it was: a
    /// reconnect that started in between, and whose new connection the transport's disconnect
    /// may have ended, never reports `.connected` after this (see `attach`).
    public func disconnect() async {
        disconnects.increment()
        await transport.disconnect()
        disconnects.increment { connection.publish(snapshot: .disconnected) }
        await sync.noConnectionComing()
    }

    // MARK: Event loop

    /// Consumes the transport's events for the client's lifetime. It captures the engine and
    /// the transport, not the client, so the client can be freed (which cancels the loop).
    private func startEventLoop() -> Task<Void, Never> {
        let transport = transport
        let sync = sync
        let connection = connection
        let policy = reconnectPolicy
        let disconnects = disconnects
        return Task {
            await sync.consume(transport.events) { reason in
                switch reason {
                case .requested:
                    // `disconnect()` published the state already; a late one must not
                    // overwrite a newer connection's.
                    break
                case .replaced:
                    connection.publish(
                        snapshot: .disconnected,
                        error: ChatError.unavailable(
                            "another client connected as the same user and device; call connect() to take over"))
                case .connectionLost(let error):
                    connection.publish(snapshot: .reconnecting, error: error)
                    // Reconnect beside the loop: the loop must keep applying the replayed
                    // events that requests made while resyncing wait for.
                    Task {
                        await Self.reconnect(
                            transport: transport, sync: sync, connection: connection, policy: policy,
                            disconnects: disconnects, after: error)
                    }
                }
            }
        }
    }

    /// The one way a connection is made, by ``connect()`` and by reconnects: connects the
    /// transport resuming after `sequence`, records the result on the engine, then — when
    /// `publishIfWanted` (run right after) says the connection is still wanted, having
    /// published `.connected` — brings the caches current (`SyncEngine.recover()`).
    /// - Throws: what the transport's `connect` throws; nothing is recorded then.
    private static func attach(
        transport: any ChatTransport, sync: SyncEngine, resumingAfter sequence: Int?,
        publishIfWanted: () -> Bool
    ) async throws {
        let result = try await transport.connect(resumingAfter: sequence)
        await sync.didConnect(result)
        guard publishIfWanted() else { return }
        await sync.recover()
    }

    /// Publishes `.connected` (clearing the last error).
    private static func publishConnected(_ connection: LiveObjectSource<ConnectionState>) {
        connection.publish(snapshot: .connected, dataStatus: .fresh)
    }

    /// Reconnects after a lost connection, as `policy` says. A server that said how long to
    /// wait (`ChatError.rateLimited(retryAfter:)`, as the reason the connection was lost or the
    /// answer to an attempt) is waited for, on top of the policy's wait.
    private static func reconnect(
        transport: any ChatTransport, sync: SyncEngine, connection: LiveObjectSource<ConnectionState>,
        policy: ReconnectPolicy, disconnects: DisconnectCounter, after lost: ChatError
    ) async {
        let epoch = disconnects.value
        var retryAfter = lost.retryAfter
        for attempt in 1...max(1, policy.maximumAttempts) {
            do {
                if let retryAfter { try await Task.sleep(for: .seconds(Backoff.serverWait(retryAfter))) }
                try await policy.wait(attempt)
            } catch {
                break
            }
            // The user disconnected meanwhile: their word stands.
            if disconnects.value != epoch { return }
            do {
                try await attach(transport: transport, sync: sync, resumingAfter: await sync.appliedSequence) {
                    // The user's disconnect came while this connect was under way: never report
                    // `.connected` over their `.disconnected` (a later `connect()` takes the
                    // connection over; disconnecting here could end one the user made since).
                    // Checked and published under the count's lock: a disconnect that counted
                    // before this reconnect started may have ended its connection since, and
                    // counts again (publishing `.disconnected`) only once it has — so
                    // `.connected` is published before that, or not at all (seed 58849).
                    disconnects.ifUnchanged(since: epoch) { publishConnected(connection) }
                }
                return
            } catch {
                retryAfter = (error as? ChatError)?.retryAfter
                connection.publish(error: error)
            }
        }
        connection.publish(snapshot: .disconnected)
        await sync.noConnectionComing()
    }
}
