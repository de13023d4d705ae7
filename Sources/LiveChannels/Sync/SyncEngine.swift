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
    private nonisolated let signedIn = Lock<User?>(nil, rank: .leaf)
    /// Set by `ChatClient.close()`: every request throws from then on.
    private nonisolated let isClosed = Lock(false, rank: .leaf)
    /// The cache file the caches write behind to, if any.
    nonisolated let store: CacheStore?
    /// Opens once the caches hold everything the file held: nothing from the server is applied
    /// before (a stored value loaded after a newer page would undo it).
    nonisolated let restoration = Gate()
    /// The sequence number of the last event applied.
    private(set) var appliedSequence = 0
    /// Whether the caches came from the file and can resume from ``appliedSequence`` (until the
    /// first connection is made).
    private(set) var isRestored = false
    /// Whether the file may record ``appliedSequence``: not while a fresh start or a resync is
    /// under way (the file would claim changes it does not hold).
    private var storesSequence = true
    /// The server history the caches were filled from (``ChatAPI/ConnectResult/epoch``, as
    /// ``CacheStore/epochNumber(_:)`` numbers it): the file's at start, then each connection's.
    /// `nil` while unknown (an empty cache, a file older than epochs, a server that tells none).
    private(set) var epoch: Int?
    /// Set by a connection to another history than the caches': the recovery that follows
    /// starts over (``startOver()``) instead of resuming or resyncing.
    private var startsOver = false
    /// Work waiting for an event sequence number to be applied: each runs on the engine right
    /// after that event, before any later one.
    private var waiters: [(target: Int, run: @Sendable (isolated SyncEngine) -> Void)] = []

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
        messages = EntityCache(retaining: messageRetention, didStore: Self.recorder(store))
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

    /// What a cache calls to write its stored values behind to `store`.
    private static func recorder<Entity: CachedEntity>(_ store: CacheStore?) -> (@Sendable ([Entity]) -> Void)? {
        guard let store else { return nil }
        return { store.record($0) }
    }

    /// Loads everything else the file holds into the caches, a chunk at a time, then opens
    /// ``restoration``. Values already cached are kept (same or newer versions).
    func restore() async {
        defer { restoration.open() }
        guard let store, store.failure == nil else { return }
        await restore(channels, from: store)
        await restore(users, from: store)
        await restore(members, from: store)
        await restore(messages, from: store)
        if !store.isIntact {
            // The file was damaged and rebuilt: what it held cannot be trusted to resume from.
            isRestored = false
        }
    }

    private func restore<Entity: CachedEntity>(_ cache: EntityCache<Entity>, from store: CacheStore) async {
        var rowid = 0
        while let chunk = await store.values(Entity.self, after: rowid) {
            cache.upsert(chunk.values, persisting: false, dataStatus: .local)
            rowid = chunk.last
        }
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
        let envelope = try await transport.send(request)
        return try await run(after: envelope.position) { engine in
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

    /// Returns once the event with sequence number `target` (and all before it) was applied.
    func waitUntilApplied(_ target: Int) async {
        _ = try? await run(after: target) { _ in }
    }

    /// Runs `body` on the engine once event `target` has been applied.
    private func run<Result: Sendable>(
        after target: Int, _ body: @escaping @Sendable (isolated SyncEngine) throws -> Result
    ) async throws -> Result {
        if appliedSequence >= target { return try body(self) }
        return try await withCheckedThrowingContinuation { continuation in
            waiters.append((target, { engine in continuation.resume(with: Swift.Result { try body(engine) }) }))
        }
    }

    /// Runs the waiters whose event has now been applied, in the order they started waiting.
    private func runReadyWaiters() {
        guard waiters.contains(where: { $0.target <= appliedSequence }) else { return }
        let ready = waiters.filter { $0.target <= appliedSequence }
        waiters.removeAll { $0.target <= appliedSequence }
        for waiter in ready { waiter.run(self) }
    }

    // MARK: Connection

    /// Records a (re)connection. When events were missed and cannot be replayed, numbering
    /// restarts from `result.lastSequence` and the waiting responses run now (their events will
    /// never come; the caller then resyncs, which reloads what they showed).
    ///
    /// A connection to another history than the one the caches were filled from (another
    /// ``ChatAPI/ConnectResult/epoch``) is treated as one that cannot resume, and every cached
    /// value is forgotten now — in memory and in the file — before any event of the new
    /// history is applied; ``recover(after:)`` then reloads everything shown.
    func didConnect(_ result: ConnectResult) {
        signedIn.withLock { $0 = result.currentUser }
        isRestored = false
        let incoming = result.epoch.isEmpty ? nil : CacheStore.epochNumber(result.epoch)
        if let incoming, incoming != epoch {
            if epoch != nil {
                startsOver = true
                forgetEverything()
            }
            epoch = incoming
            store?.recordEpoch(incoming, startingOver: startsOver)
        }
        guard result.status != .resumed || startsOver else { return }
        storesSequence = false
        store?.recordSequence(nil)
        appliedSequence = result.lastSequence
        runAllWaiters()
    }

    /// Records that the connection ended: whatever waits for events runs now rather than
    /// waiting for a connection that may never come back (`synchronize()` returns, responses
    /// apply). Safe because versions guard the caches: events replayed after a reconnect never
    /// replace the newer values these responses carry.
    func connectionEnded() {
        runAllWaiters()
    }

    private func runAllWaiters() {
        let all = waiters
        waiters.removeAll()
        for waiter in all { waiter.run(self) }
    }

    /// Brings the caches current after a connection was made: a fresh start loads the user's
    /// channels, a resync reloads everything shown; then whatever failed for want of a
    /// connection runs again.
    func recover(after status: ConnectResult.Status) async {
        if startsOver {
            startsOver = false
            await resync(discarding: true)
        } else {
            await recover(resuming: status)
        }
        await retries.connectionEstablished()
        storesSequence = true
        store?.recordSequence(appliedSequence)
    }

    private func recover(resuming status: ConnectResult.Status) async {
        switch status {
        case .new: await loadMemberships()
        case .resyncRequired: await resync()
        case .resumed:
            // After a start from the file, its channels are the membership list, brought
            // current by the replayed events.
            if store != nil { unread.publish(dataStatus: .fresh, loadingStatus: .loaded) }
        }
    }

    /// Forgets every cached value (another history: see ``didConnect(_:)``): the caches empty,
    /// the unread total loses every channel, typing indicators end.
    private func forgetEverything() {
        typing.reset()
        let contributions = channels.removeAll().compactMap { channel -> (String, Int?)? in
            Self.unreadContribution(of: channel) == nil ? nil : (channel.channelId, nil)
        }
        if !contributions.isEmpty { unread.set(contributions) }
        unread.publish(dataStatus: .local, loadingStatus: .loading)
        members.removeAll()
        messages.removeAll()
        users.removeAll()
    }

    /// The sequence to resume after on the first connection: the file's, if the caches came
    /// from it.
    var restoredSequence: Int? { isRestored ? appliedSequence : nil }

    // MARK: Events

    /// How many events ``consume(_:didEnd:)`` applies in a row before letting other work on the
    /// engine run (responses waiting for their position, loads).
    static let eventsPerTurn = 256

    /// Applies `events` (the transport's stream) as they come, on the engine, until the stream
    /// finishes or the task is cancelled. The loop runs on the engine itself: an event already
    /// buffered behind the one being applied is taken and applied without a hop, so a burst of
    /// events costs one wake-up, not one per event. Each connection's end is applied after
    /// every event before it (``connectionEnded()``), then told to `didEnd`, on the engine.
    func consume(_ events: AsyncStream<ConnectionEvent>, didEnd: @Sendable (DisconnectReason) -> Void) async {
        var appliedInTurn = 0
        for await item in events {
            switch item {
            case .event(let envelope):
                handle(envelope)
                appliedInTurn += 1
                if appliedInTurn == Self.eventsPerTurn {
                    appliedInTurn = 0
                    await Task.yield()
                }
            case .disconnected(let reason):
                connectionEnded()
                didEnd(reason)
            }
        }
    }

    /// Applies one event envelope unless it is a duplicate.
    func handle(_ envelope: EventEnvelope) {
        guard envelope.sequence > appliedSequence else { return }
        appliedSequence = envelope.sequence
        store?.beginUnit()
        apply(envelope.event)
        store?.endUnit(sequence: storesSequence ? envelope.sequence : nil)
        runReadyWaiters()
    }

    /// Applies envelopes in order, as ``handle(_:)`` does one by one.
    func handle(_ envelopes: [EventEnvelope]) {
        for envelope in envelopes { handle(envelope) }
    }

    private func apply(_ event: ChatEvent) {
        switch event {
        case .channelUpdated(let channel) where channel.currentUserMembership != .member:
            let memberCount = channels.entity(channel.channelId)?.memberCount
            channels.upsert([channel])
            if memberCount != channel.memberCount { refreshMemberLists(of: channel.channelId) }
        case .channelCreated(let channel), .channelUpdated(let channel), .channelDeleted(let channel):
            channels.upsert([channel])
        case .memberAdded(let member, let channel), .memberRemoved(let member, let channel),
            .memberBanned(let member, let channel), .memberUnbanned(let member, let channel),
            .readMarkerMoved(let member, let channel):
            channels.upsert([channel])
            members.upsert([member])
        case .memberMuted(let member), .memberUnmuted(let member), .memberRoleChanged(let member):
            members.upsert([member])
        case .messageNew(let message, let channel):
            channels.upsert([channel])
            messages.upsert([message])
            advanceReadMarker(ofSenderOf: message)
        case .messageUpdated(let message), .messageDeleted(let message):
            messages.upsert([message])
        case .typingStarted, .typingStopped:
            typing.apply(event)
        case .userUpdated(let user), .presenceChanged(let user):
            users.upsert([user])
            if user.userId == transport.userId { updateCurrentUser(user) }
            refreshProfile(user)
        }
    }

    /// A member's own message moves their read marker to it. The server tells only the sender's
    /// devices (`readMarkerMoved`); every other member's client infers it here, so a member
    /// list shows it without one more event per message and member.
    /// - Complexity: O(1) when the sender's member record is not cached or already there.
    private func advanceReadMarker(ofSenderOf message: Message) {
        let key = ChannelMember.cacheKey(channelId: message.channelId, userId: message.userId)
        guard var member = members.entity(key), member.readSequence < message.sequence else { return }
        member.readSequence = message.sequence
        members.upsert([member])
    }

    /// Shows a changed user profile in the cached member records of that user (same version:
    /// only the embedded profile changes, which ``CachedEntity/merging(cached:)`` keeps).
    /// - Complexity: O(the user's cached member records).
    private func refreshProfile(_ user: User) {
        let records = members.entities(inGroup: user.userId).compactMap { member -> ChannelMember? in
            guard member.user.map({ $0.version < user.version }) ?? true else {
                return nil
            }
            var updated = member
            updated.user = user
            return updated
        }
        members.upsert(records)
    }

    /// Reloads the member lists of a channel the user is not a member of: the server tells
    /// outsiders that the membership changed (the member count), not who joined or left.
    private func refreshMemberLists(of channelId: String) {
        for list in members.observers where list.channelScope == channelId {
            Task { await list.reload(discarding: false) }
        }
    }

    // MARK: Live lists

    /// The one way a live list loads: sends `request` (a page the list asked for), applies the
    /// page in order with events, and goes on while a reload needs more pages. A failure is
    /// reported by the list, which retries once connected.
    func loadPages<Spec>(of query: LiveQuery<Spec>, startingWith request: ChatRequest) async {
        var request = request
        let connection = retries.connection
        while true {
            do {
                let next = try await perform(request) { _, envelope in
                    try query.applyPage(envelope.response, revision: envelope.revision)
                }
                guard let next else { return }
                request = next
            } catch {
                query.failPage(error, startedIn: connection)
                return
            }
        }
    }

    // MARK: Memberships and resync

    /// Loads every channel the user is a member of, so that the total unread count covers them
    /// all; events keep it current afterwards. A cached channel still marked as joined that the
    /// server no longer lists (left while events were missed) is fetched again.
    func loadMemberships() async {
        let connection = retries.connection
        let query = ChannelListQuery(
            filter: .equal(.joined, to: true), sort: [Sorting(key: .channelId, isAscending: true)],
            pageSize: ChannelListQuery.maximumPageSize)
        var cursor: PageCursor?
        var listed: Set<String> = []
        unread.publish(loadingStatus: .loading)
        do {
            while true {
                let page = try await perform(.queryChannels(query, after: cursor)) { engine, envelope in
                    let page = try envelope.response.expected(\.channelsValue, answering: "a channel query")
                    engine.channels.upsert(page.items)
                    return page
                }
                listed.formUnion(page.items.map(\.channelId))
                guard page.hasNext, let next = page.next else { break }
                cursor = next
            }
        } catch {
            unread.publish(dataStatus: .error, loadingStatus: .error, error: error)
            retries.add(startedIn: connection) { [weak self] in await self?.loadMemberships() }
            return
        }
        let stale = channels.all.filter { Self.unreadContribution(of: $0) != nil && !listed.contains($0.channelId) }
        for channel in stale { await refetch(channel) }
        unread.publish(dataStatus: .fresh, loadingStatus: .loaded)
    }

    /// Fetches a cached channel again; one the user can no longer see is marked as not joined,
    /// so it leaves every list and the unread total.
    private func refetch(_ channel: Channel) async {
        do {
            _ = try await entity(answering: .getChannel(channelId: channel.channelId), in: channels, value: \.channelValue)
        } catch ChatError.notFound {
            var gone = channel
            gone.currentUserMembership = .none
            channels.upsert([gone])
        } catch {}
    }

    /// Reloads everything shown after a reconnect that could not resume: the channels behind the
    /// unread total, every live list as far as it reached, every live channel and user object.
    /// Typing indicators are cleared: their stops may have been missed.
    ///
    /// With `discarding` (the server's history started over and the caches were emptied), every
    /// list's first page replaces what it showed, and a live channel or user the new history
    /// does not have shows no value and the `notFound` error.
    func resync(discarding: Bool = false) async {
        typing.reset()
        await loadMemberships()
        let queries: [any EntityCacheObserver] =
            channels.observers + members.observers + messages.observers + users.observers
        for query in queries { await query.reload(discarding: discarding) }
        for channelId in channels.observedKeys {
            if let channel = channels.entity(channelId) {
                await refetch(channel)
            } else {
                await fetch(channelId, in: channels, request: .getChannel(channelId: channelId), value: \.channelValue)
            }
        }
        for userId in users.observedKeys {
            await fetch(userId, in: users, request: .getUser(userId: userId), value: \.userValue)
        }
    }

    /// Fetches an entity a live object shows but the cache lacks; one the server does not have
    /// is shown as missing. Other failures are left to the object's own retry.
    private func fetch<Entity: CachedEntity>(
        _ key: String, in cache: EntityCache<Entity>, request: ChatRequest,
        value: @escaping @Sendable (ChatResponse) -> Entity?
    ) async {
        do {
            _ = try await entity(answering: request, in: cache, value: value)
        } catch let error as ChatError {
            if case .notFound = error { cache.publishMissing(key, error: error) }
        } catch {}
    }
}
