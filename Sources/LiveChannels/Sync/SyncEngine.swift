import ChatAPI
import LiveCore

/// Applies what the server says to the cache, in order and exactly once, and publishes every
/// resulting change to the live handles.
///
/// - Events are applied in sequence order; an envelope at or below the last applied sequence is
///   a duplicate and is ignored.
/// - A response is applied only once the events queued before it were applied (see
///   ``perform(_:applying:)``), so an older event never overwrites a response's newer state.
/// - After a reconnect that cannot resume, ``resync()`` reloads every live list and object.
///
/// An actor: mutations of the cache happen one at a time, in order, and each is published before
/// the next starts.
actor SyncEngine {
    nonisolated let transport: any ChatTransport
    /// Channels, and the live objects and lists showing them.
    nonisolated let store: CacheStore
    /// Channel members, and the live member lists.
    nonisolated let members = MemberCache()
    /// Messages, and the live message lists.
    nonisolated let messages = MessageCache()
    /// Users, and the live user objects and searches.
    nonisolated let users = UserCache()
    /// The sequence number of the last event applied.
    private(set) var appliedSequence = 0
    /// Work waiting for an event sequence number to be applied: each runs on the engine right
    /// after that event, before any later one.
    private var waiters: [(target: Int, run: @Sendable (isolated SyncEngine) -> Void)] = []
    /// Lists with a page load under way.
    private var loading: Set<ObjectIdentifier> = []

    init(transport: any ChatTransport, store: CacheStore) {
        self.transport = transport
        self.store = store
    }

    // MARK: Requests

    /// Sends `request` and returns its response once every event queued up to the response has
    /// been applied. For requests whose answer needs no applying; see
    /// ``perform(_:applying:)`` for those whose answer carries data.
    /// - Throws: the `ChatError` the server answered with.
    nonisolated func perform(_ request: ChatRequest) async throws -> ChatResponse {
        try await perform(request) { _, response in response }
    }

    /// Sends `request` and applies its response with `apply`, on the engine, exactly after the
    /// last event queued before the response and before any later event. So the response's data
    /// never overwrites newer data, and the caller's write is visible in every live handle when
    /// this returns (read-your-writes without entity versions).
    /// - Throws: the `ChatError` the server answered with, or what `apply` throws.
    nonisolated func perform<Result: Sendable>(
        _ request: ChatRequest,
        applying apply: @escaping @Sendable (isolated SyncEngine, ChatResponse) throws -> Result
    ) async throws -> Result {
        let response = try await transport.send(request)
        return try await run(after: transport.lastEventSequence) { engine in try apply(engine, response) }
    }

    /// Returns once the event with sequence number `target` (and all before it) was applied.
    func waitUntilApplied(_ target: Int) async {
        _ = try? await run(after: target) { _ in }
    }

    /// Runs `body` on the engine once event `target` has been applied, before any later event.
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

    /// Records a (re)connection. When events were missed and cannot be replayed, the caller
    /// resyncs; either way numbering continues from `result.lastSequence`.
    func didConnect(_ result: ConnectResult) {
        if result.status != .resumed {
            appliedSequence = result.lastSequence
            resumeAllWaiters()
        }
    }

    /// Runs every waiting request's work now (after a resync its events will never come; the
    /// resync then reloads what they showed).
    private func resumeAllWaiters() {
        let all = waiters
        waiters.removeAll()
        for waiter in all { waiter.run(self) }
    }

    // MARK: Events

    /// Applies one event envelope unless it is a duplicate.
    func handle(_ envelope: EventEnvelope) {
        guard envelope.sequence > appliedSequence else { return }
        appliedSequence = envelope.sequence
        apply(envelope.event)
        runReadyWaiters()
    }

    /// Runs `body` on the engine, in order with event application: how a response's data is
    /// applied to a cache (after ``perform(_:)`` returned it).
    func run<Result: Sendable>(_ body: @Sendable () throws -> Result) rethrows -> Result {
        try body()
    }

    private func apply(_ event: ChatEvent) {
        members.apply(event)
        messages.apply(event)
        users.apply(event)
        switch event {
        case .channelCreated(let channel), .channelUpdated(let channel), .channelDeleted(let channel):
            upsert([channel])
        case .memberAdded(_, let channel), .memberRemoved(_, let channel),
            .memberBanned(_, let channel), .memberUnbanned(_, let channel),
            .messageNew(_, let channel), .readMarkerMoved(_, let channel):
            upsert([channel])
        case .memberMuted, .memberUnmuted, .memberRoleChanged, .messageUpdated, .messageDeleted,
            .typingStarted, .typingStopped, .userUpdated:
            break
        }
    }

    // MARK: Cache

    /// Stores channels and publishes the changes to every live object and list showing them.
    func upsert(_ channels: [Channel]) {
        let publication = store.upsert(channels)
        guard !publication.isEmpty else { return }
        if !publication.unread.isEmpty { store.unread.set(publication.unread) }
        for (source, channel) in publication.objects {
            source.publish(snapshot: channel, dataStatus: .fresh)
        }
        for list in publication.lists { list.apply(publication.changed) }
    }

    // MARK: Live lists

    static func channelPage(in response: ChatResponse) throws -> Page<Channel> {
        guard let page = response.channelsValue else {
            throw ChatError.unavailable("the server answered a channel query with something else")
        }
        return page
    }

    /// Loads the page after `list`'s window, then shows every cached channel up to the new end.
    func loadNextPage(of list: LiveChannelList) async {
        let id = ObjectIdentifier(list)
        let (query, cursor, hasNext) = list.withState { ($0.query, $0.nextCursor, $0.hasNext) }
        guard hasNext, !loading.contains(id), let source = list.source else { return }
        loading.insert(id)
        defer { loading.remove(id) }
        source.publish(loadingStatus: .loading)
        do {
            try await perform(.queryChannels(query, after: cursor)) { engine, response in
                let page = try Self.channelPage(in: response)
                engine.upsert(page.items)
                list.withState { $0.extendWindow(with: page) }
                list.rebuild(from: engine.store.channels, dataStatus: .fresh, loadingStatus: .loaded)
            }
        } catch {
            let dataStatus: DataStatus = source.collection.dataStatus == .fresh ? .fresh : .error
            source.publish(dataStatus: dataStatus, loadingStatus: .error, error: error)
        }
    }

    /// Loads every channel the user is a member of, so that the total unread count covers them
    /// all; events keep it current afterwards.
    func loadMemberships() async {
        let query = ChannelListQuery(
            filter: .equal(.joined, to: true), sort: [Sorting(key: .channelId, isAscending: true)],
            pageSize: ChannelListQuery.maximumPageSize)
        var cursor: PageCursor?
        store.unread.publish(loadingStatus: .loading)
        do {
            while true {
                let page = try await perform(.queryChannels(query, after: cursor)) { engine, response in
                    let page = try Self.channelPage(in: response)
                    engine.upsert(page.items)
                    return page
                }
                guard page.hasNext, let next = page.next else { break }
                cursor = next
            }
            store.unread.publish(dataStatus: .fresh, loadingStatus: .loaded)
        } catch {
            store.unread.publish(dataStatus: .error, loadingStatus: .error, error: error)
        }
    }

    /// Reloads everything shown after a reconnect that could not resume: each live list from
    /// its first page, each live object from the server, the channels behind the unread total,
    /// then message lists, member lists and user handles.
    func resync() async {
        await loadMemberships()
        for list in store.liveLists {
            list.withState { $0.resetWindow() }
            await loadNextPage(of: list)
        }
        for channelId in store.observedChannelIds {
            _ = try? await perform(.getChannel(channelId: channelId)) { engine, response in
                if let channel = response.channelValue { engine.upsert([channel]) }
            }
        }
        await resyncMessages()
        await resyncMemberLists()
        await resyncUsers()
    }
}
