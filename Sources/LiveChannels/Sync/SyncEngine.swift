import ChatAPI
import LiveCore
import Locking

/// Applies what the server says to the caches, in order and exactly once, and publishes every
/// resulting change to the live handles.
///
/// ## Ordering
/// - Events are applied in sequence order; an envelope at or below the last applied sequence is
///   a duplicate and is ignored.
/// - A response is applied once every event up to its ``ResponseEnvelope/position`` has been
///   applied (``perform(_:applying:)``), so the events it caused never overwrite it and the
///   caller's write is visible in every live handle when the call returns.
/// - Caches never replace a value with an older version (``EntityCache``), and a page only
///   speaks for values no newer than its revision (``LiveQueryState``): a response that arrives
///   after newer events undoes nothing.
///
/// ## Recovery
/// After every (re)connect, whatever failed for want of a connection is retried (``retries``);
/// after a reconnect that cannot resume, ``resync()`` reloads everything shown.
///
/// An actor: mutations of the caches happen one at a time, in order, and each is published
/// before the next starts.
actor SyncEngine {
    nonisolated let transport: any ChatTransport
    /// Channels as this user sees them.
    nonisolated let channels: EntityCache<Channel>
    /// Channel members (and banned users), of every channel.
    nonisolated let members: EntityCache<ChannelMember>
    /// Messages, of every channel.
    nonisolated let messages: EntityCache<Message>
    /// Users.
    nonisolated let users: EntityCache<User>
    /// Who is typing where.
    nonisolated let typing = TypingCache()
    /// The unread count of every channel the user is a member of, and their live total: O(1)
    /// per channel change, never re-summed.
    nonisolated let unread = LiveTally<String, Int>(dataStatus: .local, loadingStatus: .loading)
    /// What to run again once connected.
    nonisolated let retries = RetryList()
    /// The user the client acts for, as the last connect answered (`nil` before). Lock order: a
    /// leaf (see `LockRank`), as is ``isClosed``'s.
    nonisolated let signedIn = Lock<User?>(nil, rank: .leaf)
    /// How many connections have ended (``connectionEnded()`` counts them). A wait for events
    /// reads it before it starts and gives up once it grew: the events it waits for belonged
    /// to a connection that is gone, and come — if ever — only with a next one. Lock order: a
    /// leaf (see `LockRank`).
    nonisolated let endedConnections = Lock(0, rank: .leaf)
    /// Set by `ChatClient.close()`: every request throws from then on.
    nonisolated let isClosed = Lock(false, rank: .leaf)
    /// The cache file the caches write behind to, if any.
    nonisolated let store: CacheStore?
    /// Opens once the caches hold everything the file held: nothing from the server is applied
    /// before (a stored value loaded after a newer page would undo it).
    nonisolated let restoration = Gate()
    /// The sequence number of the last event applied.
    var appliedSequence = 0
    /// Whether the caches came from the file and can resume from ``appliedSequence`` (until the
    /// first connection is made).
    var isRestored = false
    /// Whether the file may record ``appliedSequence``: not while a fresh start or a resync is
    /// under way (the file would claim changes it does not hold).
    var storesSequence = true
    /// The server history the caches were filled from (``ChatAPI/ConnectResult/epoch``, as
    /// ``CacheStore/epochNumber(_:)`` numbers it): the file's at start, then each connection's.
    /// `nil` while unknown (an empty cache, a file older than epochs, a server that tells none).
    var epoch: Int?
    /// Set by a connection to another history than the caches': the recovery that follows
    /// starts over (``startOver()``) instead of resuming or resyncing.
    var startsOver = false
    /// The recovery the connections recorded since the last ``recover()`` call for
    /// (``didConnect(_:)``; a resync outranks a fresh start's load), `nil` when they all
    /// resumed. Kept until it runs: a connection the user no longer wanted is recorded but not
    /// recovered, and the next one — which resumes after the numbering it moved — owes that
    /// recovery all the same.
    var owedRecovery: ConnectResult.Status?
    /// How many connections ``didConnect(_:)`` has recorded.
    var connectionsRecorded = 0 {
        didSet { connectionsMade.withLock { $0 = connectionsRecorded } }
    }
    /// ``connectionsRecorded``, readable from anywhere: read it before a request, and a later
    /// value means a connection was made since (``waitForConnection(after:atMost:)``). Lock
    /// order: a leaf (see `LockRank`).
    nonisolated let connectionsMade = Lock(0, rank: .leaf)
    /// Waits of ``waitForConnection(after:atMost:)``: each resumes once more connections than its
    /// count were made (or when its time is up, whichever comes first).
    var connectionWaiters: [(after: Int, resume: @Sendable () -> Void)] = []
    /// The number of the newest event applied since the last connection ended
    /// (``connectionEnded()``); `nil` when none was.
    var newestAppliedSinceConnectionEnded: Int?
    /// Work waiting for an event sequence number to be applied: each runs on the engine right
    /// after that event, before any later one.
    var waiters: [(target: Int, run: @Sendable (isolated SyncEngine) -> Void)] = []

    /// How many messages the client keeps in memory by default before those nothing shows
    /// leave it (see ``EntityCache``'s "Retention"; the disk cache keeps them).
    static let defaultMessageRetention = 2_000

    /// - Parameters:
    ///   - store: the cache file to write behind to; its start values are loaded now
    ///     (synchronously: the lists made next show them) and the rest by ``restore()``.
    ///   - messageRetention: past this many messages in memory, those of channels no live
    ///     handle shows leave memory (`nil`: all stay).
    init(transport: any ChatTransport, store: CacheStore? = nil, messageRetention: Int? = defaultMessageRetention) {
        self.transport = transport
        self.store = store
        let unread = unread
        channels = EntityCache(
            onChange: { changes in
                let contributions = changes.compactMap { change -> (String, Int?)? in
                    let new = Self.unreadContribution(of: change.new)
                    return change.old.flatMap(Self.unreadContribution) == new ? nil : (change.new.channelId, new)
                }
                if !contributions.isEmpty { unread.set(contributions) }
            }, didStore: Self.recorder(store))
        members = EntityCache(groupedBy: { $0.userId }, didStore: Self.recorder(store))
        messages = EntityCache(
            retaining: messageRetention, didStore: Self.recorder(store), didRemove: Self.discardRecorder(store))
        users = EntityCache(didStore: Self.recorder(store))
        guard let store, store.failure == nil else {
            restoration.open()
            return
        }
        let start = store.start
        epoch = start.epoch
        channels.upsert(start.channels, persisting: false)
        members.upsert(start.members, persisting: false)
        messages.upsert(start.messages, persisting: false)
        users.upsert(start.users, persisting: false)
        if let sequence = start.sequence {
            appliedSequence = sequence
            isRestored = true
        }
    }

    /// What the message cache calls to delete discarded local messages from `store`.
    private static func discardRecorder(_ store: CacheStore?) -> (@Sendable ([Message]) -> Void)? {
        guard let store else { return nil }
        return { store.recordDiscarded($0) }
    }

    /// What a cache calls to write its stored values behind to `store`.
    private static func recorder<Entity: CachedEntity>(_ store: CacheStore?) -> (@Sendable ([Entity]) -> Void)? {
        guard let store else { return nil }
        return { store.record($0) }
    }

    /// What a channel adds to the total unread count: its unread count while the user is a
    /// member of it (and it is not deleted), nothing otherwise.
    static func unreadContribution(of channel: Channel) -> Int? {
        channel.currentUserMembership == .member && !channel.isDeleted ? channel.unreadCount : nil
    }

    // MARK: Requests

    /// Sends `request` and returns its response once every event up to the response's position
    /// has been applied. For requests whose answer needs no applying.
    /// - Throws: the `ChatError` the server answered with.
    @discardableResult
    nonisolated func perform(_ request: ChatRequest) async throws -> ChatResponse {
        try await perform(request) { _, envelope in envelope.response }
    }

    /// Sends `request` and applies its response with `apply`, on the engine, once every event
    /// up to the response's ``ResponseEnvelope/position`` has been applied — nothing is read
    /// after the fact. The caller's write is visible in every live handle when this returns.
    /// - Throws: the `ChatError` the server answered with, or what `apply` throws.
    nonisolated func perform<Result: Sendable>(
        _ request: ChatRequest,
        applying apply: @escaping @Sendable (isolated SyncEngine, ResponseEnvelope) throws -> Result
    ) async throws -> Result {
        try checkOpen()
        await restoration.wait()
        // Before the first connect nothing is sent: handles show the cache (`.local`) and load
        // once connected (their retry); a call fails at once, as it would offline.
        guard currentUser != nil else { throw Self.notConnected }
        let connection = endedConnectionCount
        let envelope = try await transport.send(request)
        return try await run(after: envelope.position, unlessConnectionEndedSince: connection) { engine in
            // One unit for the cache file: a response's values are written together.
            engine.store?.beginUnit()
            defer { engine.store?.endUnit(sequence: nil) }
            return try apply(engine, envelope)
        }
    }

    /// The user the client acts for, once connected.
    nonisolated var currentUser: User? { signedIn.withLock { $0 } }

    /// What a request made before the client's first `connect()` throws.
    static let notConnected = ChatError.unavailable("not connected yet: call connect() first")

    /// Records a newer profile of the current user (a profile update it made).
    nonisolated func updateCurrentUser(_ user: User) {
        signedIn.withLock { current in
            if (current?.version ?? -1) <= user.version { current = user }
        }
    }

    /// What live queries need to know about the user (visibility depends on it).
    nonisolated var queryContext: QueryContext {
        QueryContext(viewerId: transport.userId, isAdmin: currentUser?.isAdmin ?? false)
    }

    /// Makes every later request throw (the client closed); whether this call closed it (`false`
    /// when it was closed already).
    @discardableResult
    nonisolated func close() -> Bool {
        isClosed.withLock { isClosed in
            defer { isClosed = true }
            return !isClosed
        }
    }

    /// - Throws: `ChatError.notAllowed` once the client is closed.
    nonisolated func checkOpen() throws(ChatError) {
        if isClosed.withLock({ $0 }) { throw ChatClient.closedError }
    }

    /// Returns once the engine has finished what it was doing (an event or response being
    /// applied, and recorded for the cache file).
    func finishCurrentWork() {}

    /// How many connections have ended so far: read it before starting something that will wait
    /// for events (see ``run(after:unlessConnectionEndedSince:_:)``).
    nonisolated var endedConnectionCount: Int { endedConnections.withLock { $0 } }

    /// Returns once the event with sequence number `target` (and all before it) was applied, or
    /// once a connection ended after ``endedConnectionCount`` read `connection`.
    func waitUntilApplied(_ target: Int, unlessConnectionEndedSince connection: Int? = nil) async {
        _ = try? await run(after: target, unlessConnectionEndedSince: connection) { _ in }
    }

    /// Runs `body` on the engine once event `target` has been applied — or at once when a
    /// connection ended since ``endedConnectionCount`` read `connection`: the events it would
    /// wait for come, if ever, only with a next connection (``connectionEnded()`` runs the
    /// waiters of the connection that ended; this covers a wait that starts after it did).
    func run<Result: Sendable>(
        after target: Int, unlessConnectionEndedSince connection: Int? = nil,
        _ body: @escaping @Sendable (isolated SyncEngine) throws -> Result
    ) async throws -> Result {
        if appliedSequence >= target { return try body(self) }
        if let connection, endedConnectionCount > connection { return try body(self) }
        return try await withCheckedThrowingContinuation { continuation in
            waiters.append((target, { engine in continuation.resume(with: Swift.Result { try body(engine) }) }))
        }
    }

    /// Runs the waiters whose event has now been applied, in the order they started waiting.
    func runReadyWaiters() {
        guard waiters.contains(where: { $0.target <= appliedSequence }) else { return }
        let ready = waiters.filter { $0.target <= appliedSequence }
        waiters.removeAll { $0.target <= appliedSequence }
        for waiter in ready { waiter.run(self) }
    }
}
