import ChatAPI
import LiveCore

/// Applies what the server says to the cache, in order and exactly once, and publishes every
/// resulting change to the live handles.
///
/// - Events are applied in sequence order; an envelope at or below the last applied sequence is
///   a duplicate and is ignored.
/// - A response is applied only once the events queued before it were applied (see
///   ``perform(_:)``), so an older event never overwrites a response's newer state.
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
    /// Requests waiting for their events to be applied.
    private var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Lists with a page load under way.
    private var loading: Set<ObjectIdentifier> = []

    init(transport: any ChatTransport, store: CacheStore) {
        self.transport = transport
        self.store = store
    }

    // MARK: Requests

    /// Sends `request` and returns its response once every event queued up to the response has
    /// been applied (read-your-writes: the caller may then apply the response's data).
    /// - Throws: the `ChatError` the server answered with.
    nonisolated func perform(_ request: ChatRequest) async throws -> ChatResponse {
        let response = try await transport.send(request)
        await waitUntilApplied(transport.lastEventSequence)
        return response
    }

    /// Returns once the event with sequence number `target` (and all before it) was applied.
    func waitUntilApplied(_ target: Int) async {
        guard appliedSequence < target else { return }
        await withCheckedContinuation { continuation in
            waiters.append((target, continuation))
        }
    }

    private func resumeWaiters() {
        guard !waiters.isEmpty else { return }
        let ready = waiters.filter { $0.target <= appliedSequence }
        waiters.removeAll { $0.target <= appliedSequence }
        for waiter in ready { waiter.continuation.resume() }
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

    /// Releases every waiting request (after a resync its events will never come).
    private func resumeAllWaiters() {
        let all = waiters
        waiters.removeAll()
        for waiter in all { waiter.continuation.resume() }
    }

    // MARK: Events

    /// Applies one event envelope unless it is a duplicate.
    func handle(_ envelope: EventEnvelope) {
        guard envelope.sequence > appliedSequence else { return }
        appliedSequence = envelope.sequence
        apply(envelope.event)
        resumeWaiters()
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

    /// Loads the page after `list`'s window, then shows every cached channel up to the new end.
    func loadNextPage(of list: LiveChannelList) async {
        let id = ObjectIdentifier(list)
        let (query, cursor, hasNext) = list.withState { ($0.query, $0.nextCursor, $0.hasNext) }
        guard hasNext, !loading.contains(id), let source = list.source else { return }
        loading.insert(id)
        defer { loading.remove(id) }
        source.publish(loadingStatus: .loading)
        do {
            guard let page = try await perform(.queryChannels(query, after: cursor)).channelsValue else {
                throw ChatError.unavailable("the server answered a channel query with something else")
            }
            upsert(page.items)
            list.withState { $0.extendWindow(with: page) }
            list.rebuild(from: store.channels, dataStatus: .fresh, loadingStatus: .loaded)
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
                guard let page = try await perform(.queryChannels(query, after: cursor)).channelsValue else {
                    throw ChatError.unavailable("the server answered a channel query with something else")
                }
                upsert(page.items)
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
            if let channel = try? await perform(.getChannel(channelId: channelId)).channelValue {
                upsert([channel])
            }
        }
        await resyncMessages()
        await resyncMemberLists()
        await resyncUsers()
    }
}
