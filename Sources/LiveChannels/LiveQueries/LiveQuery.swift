import ChatAPI
import LiveCore
import Locking

/// A live list of any entity kind: one ``LiveQueryState`` and the collection source that shows
/// it. It observes its ``EntityCache`` (events), loads pages through the sync engine's one
/// paging entry point (``SyncEngine/loadPages(of:startingWith:)``), and is the source's pager,
/// so `nextPage()`/`previousPage()` land here.
///
/// The source keeps the query and its client alive (the query itself refers only to the sync
/// engine, so a page load in flight does not keep a client nobody holds). The cache holds it
/// too, until the source goes away (a ``Registration`` the source retains then unregisters
/// it); the engine refers to it weakly. So a list nobody holds is freed.
///
/// Threading: the state is guarded by a lock held only while computing a change, never while
/// publishing (a synchronous observer may call back, e.g. `nextPage()`). Each change is queued
/// under that lock and the queue is published in order by one thread at a time, so the source
/// receives the changes in the order they were computed, whichever threads computed them.
/// Events and pages are applied by the sync engine, one at a time, in order.
final class LiveQuery<Spec: LiveQuerySpec>: LiveCollectionPaging, EntityCacheObserver, Sendable {
    typealias Entity = Spec.Entity

    let sync: SyncEngine
    let cache: EntityCache<Entity>
    let channelScope: String?
    /// The list's name in the cache file, if it is remembered there.
    let storageKey: String?
    /// The list's state with the publications computed from it and not yet delivered.
    private struct Shared: Sendable {
        var query: LiveQueryState<Spec>
        var outbox: [@Sendable () -> Void] = []
        /// Whether a thread is delivering the outbox.
        var isDelivering = false
    }

    /// Guards the list's state and its outbox. Lock order: `LockRank.liveQuery`, the outermost of
    /// the client's locks: applying a page reads the cache under it (the cache's lock); nothing
    /// is published under it.
    private let shared: Lock<Shared>
    weak let source: LiveCollectionSource<Entity>?

    private init(
        client: ChatClient, spec: Spec, pageSize: Int, cache: EntityCache<Entity>, source: LiveCollectionSource<Entity>
    ) {
        sync = client.sync
        self.cache = cache
        self.source = source
        channelScope = spec.channelScope
        storageKey = client.store == nil ? nil : spec.storageKey
        shared = Lock(
            Shared(query: LiveQueryState(spec: spec, context: client.queryContext, pageSize: pageSize)),
            rank: .liveQuery)
    }

    /// A live list of what `spec` selects: matching cached entities at once (`.local`), then
    /// the first page from the server (`.fresh`). An invalid spec reports its
    /// `ChatError.invalidArgument` as the collection's `error`, with `dataStatus == .error`.
    static func make(
        client: ChatClient, spec: Spec, pageSize: Int, cache: EntityCache<Entity>
    ) -> LiveCollection<Entity> {
        let (collection, query) = start(client: client, spec: spec, pageSize: pageSize, cache: cache)
        query?.requestPage()
        return collection
    }

    /// As ``make(client:spec:pageSize:cache:)``, but without asking for the first page: the
    /// caller does (``loadPage(limit:)``). Also returns the query (`nil` for an invalid spec,
    /// whose collection reports the error) — for controllers that page with a limit and await
    /// the end of a load.
    static func start(
        client: ChatClient, spec: Spec, pageSize: Int, cache: EntityCache<Entity>
    ) -> (LiveCollection<Entity>, LiveQuery?) {
        do {
            try spec.validate()
        } catch {
            return (LiveCollection(failure: error), nil)
        }
        let forward = spec.growth == .forward
        let source = LiveCollectionSource<Entity>(
            dataStatus: .notExist, loadingStatus: .loading, hasNext: forward, hasPrevious: !forward)
        let query = LiveQuery(client: client, spec: spec, pageSize: pageSize, cache: cache, source: source)
        source.setPager(query)
        source.retain(client)
        let cached = cache.register(query)
        source.retain(Registration(cache: cache, query: ObjectIdentifier(query)))
        // The first page stored for this list: the server listed those, so they show even for
        // conditions the client cannot judge (other users' memberships).
        let stored = query.storageKey.flatMap { client.store?.start.lists[$0] } ?? []
        let confirmed = Set(stored.compactMap { cache.entity($0)?.id })
        query.prefill(from: cached, confirmed: confirmed)
        if client.store != nil, !client.sync.restoration.isOpen {
            // The rest of the file arrives once it is loaded: the list shows its share of it
            // then (`.local`), unless the server has answered by then.
            let sync = client.sync
            Task { [weak query] in
                await sync.restoration.wait()
                guard let query else { return }
                query.prefill(from: query.cache.all, confirmed: confirmed, unlessLoaded: true)
            }
        }
        return (source.collection, query)
    }

    /// Shows the cached entities the list selects (its first page's worth), `.local`; with
    /// `unlessLoaded`, only while no page from the server has been applied.
    private func prefill(from cached: [Entity], confirmed: Set<String>, unlessLoaded: Bool = false) {
        mutate { (state: inout LiveQueryState<Spec>) -> ((), Publication?) in
            if unlessLoaded && state.hasLoadedFirstPage { return ((), nil) }
            state.prefill(from: cached, confirmed: confirmed)
            let items = state.items
            guard !items.isEmpty else { return ((), nil) }
            return ((), { [weak source] in source?.publish(snapshots: items, dataStatus: .local) })
        }
    }

    // MARK: LiveCollectionPaging

    func loadNextPage() {
        if growth == .forward { requestPage() }
    }

    func loadPreviousPage() {
        if growth == .backward { requestPage() }
    }

    private var growth: WindowGrowth { shared.withLock { $0.query.spec.growth } }

    // MARK: Publishing in order

    typealias Publication = @Sendable () -> Void

    /// Runs `body` on the state under the lock, queues the publication it returns, and delivers
    /// the queue in order unless another thread is delivering it (which then delivers this too).
    @discardableResult
    private func mutate<Result>(
        _ body: (inout LiveQueryState<Spec>) throws -> (Result, (@Sendable () -> Void)?)
    ) rethrows -> Result {
        let (result, deliver) = try shared.withLock { shared -> (Result, Bool) in
            let (result, publication) = try body(&shared.query)
            if let publication { shared.outbox.append(publication) }
            guard !shared.isDelivering, !shared.outbox.isEmpty else { return (result, false) }
            shared.isDelivering = true
            return (result, true)
        }
        if deliver { deliverOutbox() }
        return result
    }

    private func deliverOutbox() {
        while true {
            // Take everything queued so far, in order; publications queued meanwhile are taken
            // by the next round.
            let batch = shared.withLock { shared -> [@Sendable () -> Void] in
                if shared.outbox.isEmpty { shared.isDelivering = false }
                return Self.take(&shared.outbox)
            }
            guard !batch.isEmpty else { return }
            for publication in batch { publication() }
        }
    }

    private static func take(_ outbox: inout [@Sendable () -> Void]) -> [@Sendable () -> Void] {
        var taken: [@Sendable () -> Void] = []
        swap(&taken, &outbox)
        return taken
    }

    /// Starts loading the next page (or the first, or retries a failed one), if one can load.
    /// The collection shows `.loading` before this returns, so a caller can wait for the end of
    /// loading; the request runs on the sync engine.
    func requestPage() {
        guard let request = beginPageLoad() else { return }
        let sync = sync
        Task { await sync.loadPages(of: self, startingWith: request) }
    }

    /// Loads the next page (or the first, or retries a failed one) of `limit` elements (the
    /// list's page size when `nil`) and returns once it is applied to the collection's source
    /// (or its failure reported there). Returns at once when no page can load (one is under
    /// way, or the list is complete).
    func loadPage(limit: Int?) async {
        guard let request = beginPageLoad(limit: limit) else { return }
        await sync.loadPages(of: self, startingWith: request)
    }

    /// Marks a page load as started; the collection shows `.loading` when this returns (even
    /// while another thread delivers earlier changes: statuses are read from the state when
    /// delivered, so none of those can show an older one). The request to send, if any.
    func beginPageLoad(limit: Int? = nil) -> ChatRequest? {
        let context = sync.queryContext
        let request = shared.withLock { shared -> ChatRequest? in
            shared.query.context = context
            return shared.query.beginPageLoad(limit: limit)
        }
        if request != nil { source?.publish(loadingStatus: .loading) }
        return request
    }

    /// The loading status the state has now (for publications, when they are delivered).
    private var currentLoadingStatus: LoadingStatus { shared.withLock { $0.query.loadingStatus } }

    // MARK: Engine side

    /// Applies changed entities (events, other responses) one by one and publishes the composed
    /// change, if any.
    // The cache calls this through a protocol, which would run the generic body unspecialized
    // (every element operation through witness tables, several times slower); these bodies are
    // compiled for each kind of list and chosen on entry.
    @_specialize(where Spec == ChannelListSpec)
    @_specialize(where Spec == MemberListSpec)
    @_specialize(where Spec == MessageListSpec)
    @_specialize(where Spec == UserSearchSpec)
    func entitiesDidChange(_ changed: [Entity]) {
        let loadsAgain = mutate { (state: inout LiveQueryState<Spec>) -> (Bool, Publication?) in
            var total: CollectionChange?
            for entity in changed {
                guard let change = state.apply(entity) else { continue }
                total = total.map { $0.followed(by: change) } ?? change
            }
            let loadsAgain = state.shouldLoadAgain(after: changed)
            guard let change = total else { return (loadsAgain, nil) }
            let entries = state.entries
            return (
                loadsAgain, { [weak source] in source?.publish(elements: entries, as: { $0.element }, change: change) }
            )
        }
        // The scope its first page did not find exists now: load it (on the engine, after
        // this change).
        if loadsAgain { requestPage() }
    }

    /// Drops entities that left the cache for good (discarded local messages) and publishes the
    /// change, if any.
    func entitiesDidDisappear(_ removed: [Entity]) {
        mutate { (state: inout LiveQueryState<Spec>) -> ((), Publication?) in
            var total: CollectionChange?
            for entity in removed {
                guard let change = state.remove(entity) else { continue }
                total = total.map { $0.followed(by: change) } ?? change
            }
            guard let change = total else { return ((), nil) }
            let entries = state.entries
            return ((), { [weak source] in source?.publish(elements: entries, as: { $0.element }, change: change) })
        }
    }

    /// Applies a page response read at `revision`: stores its entities (every other handle sees
    /// them), then rebuilds the covered range and publishes one change with the new statuses.
    /// - Returns: the request for the next page when a reload must go on, else `nil`.
    /// - Throws: `ChatError.unavailable` when the response is not a page of this kind.
    // Specialized per kind of list, as `entitiesDidChange(_:)` is.
    @_specialize(where Spec == ChannelListSpec)
    @_specialize(where Spec == MemberListSpec)
    @_specialize(where Spec == MessageListSpec)
    @_specialize(where Spec == UserSearchSpec)
    func applyPage(_ response: ChatResponse, revision: Int) throws -> ChatRequest? {
        let page = try shared.withLock { try $0.query.spec.page(in: response) }
        cache.upsert(page.items, excluding: self)
        let cache = cache
        let newest = cache.newestVersion
        // Values on the device only (an outbox's messages) are no page's: they are always
        // placed by the list's own matching.
        let hasLocal = cache.hasLocalEntities
        let (first, next) = mutate { state in
            let change = state.applyPage(
                page, revision: revision, newestCachedVersion: hasLocal ? .max : newest, current: cache.entity,
                newer: {
                    (newest > revision ? cache.all.filter { $0.version > revision && !$0.isLocal } : [])
                        + cache.localEntities
                })
            let next = state.nextReloadRequest()
            let (entries, hasMore, forward) = (state.entries, state.hasMore, state.spec.growth == .forward)
            let first = storageKey == nil ? [] : state.leadingItems(state.pageSize)
            let publication: @Sendable () -> Void = { [weak self, weak source] in
                let (hasNext, hasPrevious) = (forward ? hasMore : false, forward ? false : hasMore)
                let loadingStatus = self?.currentLoadingStatus
                if let change {
                    source?.publish(
                        elements: entries, as: { $0.element }, change: change, dataStatus: .fresh,
                        loadingStatus: loadingStatus,
                        hasNext: hasNext, hasPrevious: hasPrevious)
                } else {
                    source?.publish(
                        dataStatus: .fresh, loadingStatus: loadingStatus, hasNext: hasNext, hasPrevious: hasPrevious)
                }
            }
            return ((first, next), publication)
        }
        if let storageKey, let store = sync.store {
            store.recordList(storageKey, kind: Entity.storedKind, keys: first.map(\.cacheKey))
        }
        return next
    }

    /// Reports a failed page load; the list keeps what it showed and retries after the next
    /// (re)connect or `synchronize()`.
    func failPage(_ error: any Error, startedIn connection: Int) {
        let error = (error as? ChatError) ?? ChatError.unavailable("\(error)")
        mutate { (state: inout LiveQueryState<Spec>) -> ((), Publication?) in
            state.failPageLoad(notFound: { if case .notFound = error { true } else { false } }())
            // The retry is registered before the failure is published: whoever sees the failure
            // and then reconnects or calls `synchronize()` finds it (a retry started now waits for
            // this lock, so it sees the load ended).
            sync.retries.add(startedIn: connection) { [weak self] in await self?.retry() }
            return (
                (),
                { [weak self, weak source] in
                    guard let source else { return }
                    // Data shown stays as it is (`.local` from the cache, or `.fresh`).
                    let dataStatus: DataStatus? = source.collection.dataStatus == .notExist ? .error : nil
                    source.publish(dataStatus: dataStatus, loadingStatus: self?.currentLoadingStatus, error: error)
                }
            )
        }
    }

    /// Loads again what failed: the page that failed, or the first page.
    func retry() async {
        guard let request = beginPageLoad() else { return }
        await sync.loadPages(of: self, startingWith: request)
    }

    /// Reloads from the first page as far as the window reached (after a resync); with
    /// `discarding` (the server's history started over), from the first page only, which
    /// replaces every element shown.
    func reload(discarding: Bool = false) async {
        mutate { (state: inout LiveQueryState<Spec>) -> ((), Publication?) in
            guard let change = state.beginReload(discarding: discarding) else { return ((), nil) }
            let entries = state.entries
            return ((), { [weak source] in source?.publish(elements: entries, as: { $0.element }, change: change) })
        }
        guard let request = beginPageLoad() else { return }
        await sync.loadPages(of: self, startingWith: request)
    }
}

extension LiveQuery {
    /// Unregisters a query from its cache when released: the collection's source retains it,
    /// so the cache stops holding (and telling) the query once nobody holds the collection.
    final class Registration: Sendable {
        let cache: EntityCache<Entity>
        let query: ObjectIdentifier

        init(cache: EntityCache<Entity>, query: ObjectIdentifier) {
            self.cache = cache
            self.query = query
        }

        deinit { cache.unregister(query) }
    }
}
