import ChatAPI
import LiveCore
import Synchronization

/// A live message list: the ``MessageListState`` of one channel and the collection source that
/// shows it. It is the source's pager, so `previousPage()` lands here; it keeps its client alive.
///
/// Its state is mutated only by the client's ``SyncEngine`` (and the pager's loading flag); each
/// mutation is published with the exact change it made.
final class LiveMessageList: LiveCollectionPaging, Sendable {
    let client: ChatClient
    let channelId: String
    /// Guards the list's state; held only while computing a change, never while publishing.
    private let state: Mutex<MessageListState>
    weak let source: LiveCollectionSource<Message>?

    init(client: ChatClient, channelId: String, pageSize: Int, source: LiveCollectionSource<Message>) {
        self.client = client
        self.channelId = channelId
        self.source = source
        state = Mutex(MessageListState(channelId: channelId, pageSize: pageSize))
    }

    func withState<Result>(_ body: (inout MessageListState) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    // MARK: LiveCollectionPaging

    /// A message list always reaches the newest message; there is no page after it.
    func loadNextPage() {}

    /// Loads the page before the window — or, when the newest page failed to load, retries it.
    /// Marks the list `.loading` before returning, so `previousPage()` followed by waiting for the
    /// end of loading cannot see the state from before the call.
    func loadPreviousPage() {
        guard startLoading() else { return }
        let client = client
        Task { await client.sync.loadPage(of: self) }
    }

    /// Marks the list as loading if a page can be loaded; whether it did.
    func startLoading() -> Bool {
        let started = state.withLock { state in
            guard state.canLoadPage else { return false }
            state.isLoading = true
            return true
        }
        if started { source?.publish(loadingStatus: .loading) }
        return started
    }

    // MARK: Publishing (sync engine)

    /// Applies messages one by one and publishes the composed change, if any.
    func apply(_ messages: [Message]) {
        guard let source else { return }
        let update = state.withLock { state -> ([Message], CollectionChange, Bool)? in
            var total: CollectionChange?
            for message in messages {
                guard let change = state.apply(message) else { continue }
                total = total.map { $0.followed(by: change) } ?? change
            }
            return total.map { (state.items, $0, state.hasPrevious) }
        }
        if let (items, change, hasPrevious) = update {
            source.publish(snapshots: items, change: change, hasPrevious: hasPrevious)
        }
    }

    /// Merges a page and publishes the result as one change with the new statuses. Clears the
    /// loading flag when `finished`.
    func merge(_ page: MessagePage, finished: Bool) {
        guard let source else { return }
        let (items, change, hasPrevious) = state.withLock { state in
            let total = state.merge(page)
            if finished { state.isLoading = false }
            return (state.items, total, state.hasPrevious)
        }
        source.publish(
            snapshots: change == nil ? nil : items, change: change, dataStatus: .fresh,
            loadingStatus: finished ? .loaded : nil, hasPrevious: hasPrevious)
    }

    /// Reports a failed page load and clears the loading flag.
    func fail(_ error: any Error) {
        guard let source else { return }
        let isLoaded = state.withLock { state in
            state.isLoading = false
            return state.isLoaded
        }
        source.publish(dataStatus: isLoaded ? nil : .error, loadingStatus: .error, error: error)
    }
}
