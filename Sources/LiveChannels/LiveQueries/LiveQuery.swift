import ChatAPI
import LiveCore
import Synchronization

/// A live list of any entity kind: one ``LiveQueryState`` and the collection source that shows
/// it. It observes its ``EntityCache`` (events), loads pages through the sync engine's one
/// paging entry point (``SyncEngine/loadPages(of:startingWith:)``), and is the source's pager,
/// so `nextPage()`/`previousPage()` land here.
///
/// The source keeps the query alive, and the query keeps its client alive; the cache and the
/// engine refer to it weakly, so a list nobody holds is freed.
///
/// Threading: the state is guarded by a lock held only while computing a change, never while
/// publishing. Events and pages are applied by the sync engine, one at a time, in order.
final class LiveQuery<Spec: LiveQuerySpec>: LiveCollectionPaging, EntityCacheObserver, Sendable {
    typealias Entity = Spec.Entity

    let client: ChatClient
    let cache: EntityCache<Entity>
    let channelScope: String?
    /// The list's name in the cache file, if it is remembered there.
    let storageKey: String?
    /// Guards the list's state.
    private let state: Mutex<LiveQueryState<Spec>>
    weak let source: LiveCollectionSource<Entity>?

    private init(
        client: ChatClient, spec: Spec, pageSize: Int, cache: EntityCache<Entity>, source: LiveCollectionSource<Entity>
    ) {
        self.client = client
        self.cache = cache
        self.source = source
        channelScope = spec.channelScope
        storageKey = client.store == nil ? nil : spec.storageKey
        state = Mutex(LiveQueryState(spec: spec, context: client.queryContext, pageSize: pageSize))
    }

    /// A live list of what `spec` selects: matching cached entities at once (`.local`), then
    /// the first page from the server (`.fresh`). An invalid spec reports its
    /// `ChatError.invalidArgument` as the collection's `error`, with `dataStatus == .error`.
    static func make(
        client: ChatClient, spec: Spec, pageSize: Int, cache: EntityCache<Entity>
    ) -> LiveCollection<Entity> {
        do {
            try spec.validate()
        } catch {
            return LiveCollection(failure: error)
        }
        let forward = spec.growth == .forward
        let source = LiveCollectionSource<Entity>(
            dataStatus: .notExist, loadingStatus: .loading, hasNext: forward, hasPrevious: !forward)
        let query = LiveQuery(client: client, spec: spec, pageSize: pageSize, cache: cache, source: source)
        source.setPager(query)
        let cached = cache.register(query)
        // The first page stored for this list: the server listed those, so they show even for
        // conditions the client cannot judge (other users' memberships).
        let stored = query.storageKey.flatMap { client.store?.start.lists[$0] } ?? []
        let confirmed = Set(stored.compactMap { cache.entity($0)?.id })
        let items = query.state.withLock { state in
            state.prefill(from: cached, confirmed: confirmed)
            return state.items
        }
        if !items.isEmpty { source.publish(snapshots: items, dataStatus: .local) }
        query.requestPage()
        return source.collection
    }

    // MARK: LiveCollectionPaging

    func loadNextPage() {
        if state.withLock({ $0.spec.growth }) == .forward { requestPage() }
    }

    func loadPreviousPage() {
        if state.withLock({ $0.spec.growth }) == .backward { requestPage() }
    }

    /// Starts loading the next page (or the first, or retries a failed one), if one can load.
    /// The collection shows `.loading` before this returns, so a caller can wait for the end of
    /// loading; the request runs on the sync engine.
    func requestPage() {
        guard let request = beginPageLoad() else { return }
        let client = client
        Task { await client.sync.loadPages(of: self, startingWith: request) }
    }

    /// Marks a page load as started (publishing `.loading`); the request to send, if any.
    func beginPageLoad() -> ChatRequest? {
        let context = client.queryContext
        let request = state.withLock { state in
            state.context = context
            return state.beginPageLoad()
        }
        if request != nil { source?.publish(loadingStatus: .loading) }
        return request
    }

    // MARK: Engine side

    /// Applies changed entities (events, other responses) one by one and publishes the composed
    /// change, if any.
    func entitiesDidChange(_ changed: [Entity]) {
        guard let source else { return }
        let update = state.withLock { state -> ([Entity], CollectionChange)? in
            var total: CollectionChange?
            for entity in changed {
                guard let change = state.apply(entity) else { continue }
                total = total.map { $0.followed(by: change) } ?? change
            }
            return total.map { (state.items, $0) }
        }
        if let (items, change) = update { source.publish(snapshots: items, change: change) }
    }

    /// Applies a page response read at `revision`: stores its entities (every other handle sees
    /// them), then rebuilds the covered range and publishes one change with the new statuses.
    /// - Returns: the request for the next page when a reload must go on, else `nil`.
    /// - Throws: `ChatError.unavailable` when the response is not a page of this kind.
    func applyPage(_ response: ChatResponse, revision: Int) throws -> ChatRequest? {
        let page = try state.withLock { try $0.spec.page(in: response) }
        cache.upsert(page.items, excluding: self)
        let cache = cache
        let newest = cache.newestVersion
        let (items, change, hasMore, next) = state.withLock { state in
            let change = state.applyPage(
                page, revision: revision, newestCachedVersion: newest, current: cache.entity,
                newer: { cache.all.filter { $0.version > revision } })
            let next = state.nextReloadRequest()
            return (state.items, change, state.hasMore, next)
        }
        let (forward, pageSize) = state.withLock { ($0.spec.growth == .forward, $0.pageSize) }
        if let storageKey, let store = client.store {
            let first = forward ? items.prefix(pageSize) : items.suffix(pageSize)
            store.recordList(storageKey, kind: Entity.storedKind, keys: first.map(\.cacheKey))
        }
        source?.publish(
            snapshots: change == nil ? nil : items, change: change, dataStatus: .fresh,
            loadingStatus: next == nil ? .loaded : .loading, hasNext: forward ? hasMore : false,
            hasPrevious: forward ? false : hasMore)
        return next
    }

    /// Reports a failed page load; the list keeps what it showed and retries after the next
    /// (re)connect or `synchronize()`.
    func failPage(_ error: any Error) {
        state.withLock { $0.failPageLoad() }
        if let source {
            // Data shown stays as it is (`.local` from the cache, or `.fresh`).
            let dataStatus: DataStatus? = source.collection.dataStatus == .notExist ? .error : nil
            source.publish(dataStatus: dataStatus, loadingStatus: .error, error: error)
        }
        client.sync.retries.add { [weak self] in await self?.retry() }
    }

    /// Loads again what failed: the page that failed, or the first page.
    func retry() async {
        guard let request = beginPageLoad() else { return }
        await client.sync.loadPages(of: self, startingWith: request)
    }

    /// Reloads from the first page as far as the window reached (after a resync).
    func reload() async {
        state.withLock { $0.beginReload() }
        guard let request = beginPageLoad() else { return }
        await client.sync.loadPages(of: self, startingWith: request)
    }
}
