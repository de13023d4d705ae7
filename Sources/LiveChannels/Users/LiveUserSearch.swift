import ChatAPI
import LiveCore
import Synchronization

/// A live user search: the ``UserSearchState`` of one query and the collection source that shows
/// it. It is the source's pager, so `nextPage()` lands here; it keeps its client alive.
///
/// Its state is mutated only by the client's ``SyncEngine`` (and the pager's loading flag); each
/// mutation is published with the exact change it made.
final class LiveUserSearch: LiveCollectionPaging, Sendable {
    let client: ChatClient
    /// Guards the search's state; held only while computing a change, never while publishing.
    private let state: Mutex<UserSearchState>
    weak let source: LiveCollectionSource<User>?

    init(client: ChatClient, query: UserSearchQuery, source: LiveCollectionSource<User>) {
        self.client = client
        self.source = source
        state = Mutex(UserSearchState(query: query))
    }

    func withState<Result>(_ body: (inout UserSearchState) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    // MARK: LiveCollectionPaging

    /// Loads the page after the window. Marks the search `.loading` before returning.
    func loadNextPage() {
        guard startLoading() else { return }
        let client = client
        Task { await client.sync.loadNextPage(of: self) }
    }

    /// A search starts at its first result; there is no page before it.
    func loadPreviousPage() {}

    /// Marks the search as loading if a page can be loaded; whether it did.
    func startLoading() -> Bool {
        let started = state.withLock { state in
            guard !state.isLoading, state.hasNext else { return false }
            state.isLoading = true
            return true
        }
        if started { source?.publish(loadingStatus: .loading) }
        return started
    }

    // MARK: Publishing (sync engine)

    /// Applies changed users one by one and publishes the composed change, if any.
    func apply(_ users: [User]) {
        guard let source else { return }
        let update = state.withLock { state -> ([User], CollectionChange)? in
            Self.apply(users, to: &state).map { (state.items, $0) }
        }
        if let (items, change) = update { source.publish(snapshots: items, change: change) }
    }

    /// Extends the window with a page and applies its users; publishes the result as one change
    /// with the new statuses.
    /// - Parameter replacing: start over (a resync): the old items are dropped first.
    func merge(_ page: Page<User>, replacing: Bool = false) {
        guard let source else { return }
        let (items, change, hasNext) = state.withLock { state in
            var change: CollectionChange?
            if replacing {
                let old = state.items
                state.reset()
                state.extendWindow(with: page)
                _ = Self.apply(page.items, to: &state)
                change = CollectionChange(from: old, to: state.items)
            } else {
                state.extendWindow(with: page)
                change = Self.apply(page.items, to: &state)
            }
            state.isLoading = false
            return (state.items, change, state.hasNext)
        }
        source.publish(
            snapshots: change == nil ? nil : items, change: change, dataStatus: .fresh, loadingStatus: .loaded,
            hasNext: hasNext)
    }

    /// Reports a failed page load and clears the loading flag.
    func fail(_ error: any Error) {
        guard let source else { return }
        state.withLock { $0.isLoading = false }
        let dataStatus: DataStatus? = source.collection.dataStatus == .fresh ? nil : .error
        source.publish(dataStatus: dataStatus, loadingStatus: .error, error: error)
    }

    private static func apply(_ users: [User], to state: inout UserSearchState) -> CollectionChange? {
        var total: CollectionChange?
        for user in users {
            guard let change = state.apply(user) else { continue }
            total = total.map { $0.followed(by: change) } ?? change
        }
        return total
    }
}
