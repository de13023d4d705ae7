import ChatAPI
import LiveCore
import Synchronization

/// A live channel list: the ``ChannelListState`` of one query and the collection source that
/// shows it. It is the source's pager, so `nextPage()` lands here; it keeps its client alive.
///
/// Its state is mutated only by the client's ``SyncEngine``; each mutation is published with
/// the exact change it made.
final class LiveChannelList: LiveCollectionPaging, Sendable {
    let client: ChatClient
    /// Guards the list's state; held only while computing a change, never while publishing.
    private let state: Mutex<ChannelListState>
    weak let source: LiveCollectionSource<Channel>?

    init(client: ChatClient, query: ChannelListQuery, source: LiveCollectionSource<Channel>) {
        self.client = client
        self.source = source
        state = Mutex(ChannelListState(query: query, viewerId: client.currentUserId))
    }

    var query: ChannelListQuery { state.withLock { $0.query } }

    func withState<Result>(_ body: (inout ChannelListState) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    // MARK: LiveCollectionPaging

    /// Starts loading the next page: the collection shows `.loading` at once (so a caller can
    /// wait for it to end), the request runs on the sync engine.
    func loadNextPage() {
        guard state.withLock({ $0.hasNext }) else { return }
        source?.publish(loadingStatus: .loading)
        let client = client
        Task { await client.sync.loadNextPage(of: self) }
    }

    /// Channel lists start at the top and grow downwards; there is no page before the first.
    func loadPreviousPage() {}

    // MARK: Publishing (sync engine)

    /// Applies changed channels one by one and publishes the composed change, if any.
    func apply(_ channels: [Channel]) {
        guard let source else { return }
        let update = state.withLock { state -> ([Channel], CollectionChange)? in
            var total: CollectionChange?
            for channel in channels {
                guard let change = state.apply(channel) else { continue }
                total = total.map { $0.followed(by: change) } ?? change
            }
            return total.map { (state.items, $0) }
        }
        if let (items, change) = update { source.publish(snapshots: items, change: change) }
    }

    /// Rebuilds from the cache after the window changed and publishes the difference.
    func rebuild(from cached: [Channel], dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil) {
        guard let source else { return }
        let (items, hasNext) = state.withLock { state in
            state.rebuild(from: cached)
            return (state.items, state.hasNext)
        }
        source.publish(snapshots: items, dataStatus: dataStatus, loadingStatus: loadingStatus, hasNext: hasNext)
    }
}
