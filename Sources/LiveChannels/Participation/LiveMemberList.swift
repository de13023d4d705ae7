import ChatAPI
import LiveCore
import Synchronization

/// A live member list: the ``MemberListState`` of one query and the collection source that
/// shows it. It is the source's pager, so `nextPage()` lands here; it keeps its client alive and
/// refers to the source weakly.
///
/// Its state is mutated only by the client's ``SyncEngine``; each mutation is published with the
/// exact change it made.
final class LiveMemberList: LiveCollectionPaging, Sendable {
    let client: ChatClient
    /// Guards the list's state; held only while computing a change, never while publishing.
    private let state: Mutex<MemberListState>
    weak let source: LiveCollectionSource<ChannelMember>?

    private init(client: ChatClient, query: MemberListQuery, source: LiveCollectionSource<ChannelMember>) {
        self.client = client
        self.source = source
        state = Mutex(MemberListState(query: query))
    }

    /// A live list of the members matching `query`: cached members at once (`.local`), then the
    /// first page from the server. An invalid query reports `ChatError.invalidArgument` as the
    /// collection's `error`, with `dataStatus == .error`.
    static func make(client: ChatClient, query: MemberListQuery) -> LiveCollection<ChannelMember> {
        do {
            try query.validate()
        } catch {
            return LiveCollection(failure: error)
        }
        let source = LiveCollectionSource<ChannelMember>(dataStatus: .notExist, loadingStatus: .loading, hasNext: true)
        let list = LiveMemberList(client: client, query: query, source: source)
        source.setPager(list)
        let cached = client.sync.members.register(list, channelId: query.channelId)
        let items = list.withState { state in
            state.prefill(from: cached)
            return state.items
        }
        if !items.isEmpty { source.publish(snapshots: items, dataStatus: .local) }
        list.loadNextPage()
        return source.collection
    }

    var query: MemberListQuery { state.withLock { $0.query } }

    func withState<Result>(_ body: (inout MemberListState) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    // MARK: LiveCollectionPaging

    func loadNextPage() {
        let client = client
        Task { await client.sync.loadNextPage(of: self) }
    }

    /// Member lists start at the top and grow downwards; there is no page before the first.
    func loadPreviousPage() {}

    // MARK: Publishing (sync engine)

    /// Applies changed member records one by one and publishes the composed change, if any.
    func apply(_ records: [ChannelMember]) {
        guard let source else { return }
        let update = state.withLock { state -> ([ChannelMember], CollectionChange)? in
            var total: CollectionChange?
            for record in records {
                guard let change = state.apply(record) else { continue }
                total = total.map { $0.followed(by: change) } ?? change
            }
            return total.map { (state.items, $0) }
        }
        if let (items, change) = update { source.publish(snapshots: items, change: change) }
    }

    /// Rebuilds from the cache after the window changed and publishes the difference.
    func rebuild(from cached: [ChannelMember], dataStatus: DataStatus? = nil, loadingStatus: LoadingStatus? = nil) {
        guard let source else { return }
        let (items, hasNext) = state.withLock { state in
            state.rebuild(from: cached)
            return (state.items, state.hasNext)
        }
        source.publish(snapshots: items, dataStatus: dataStatus, loadingStatus: loadingStatus, hasNext: hasNext)
    }
}
