import ChatAPI
import LiveCore

/// What list controllers share: one live collection shown as a list (filtered, possibly
/// reversed), its deliveries turned into ``ListChange``s, and loads awaited until the list
/// shows their result. Owns no data: the list is the collection's snapshot as last delivered.
///
/// Main-actor: the collection is observed on the main actor, where the controllers live.
@MainActor
final class LiveListBinding<Item: Identifiable & Equatable & Sendable> {
    /// The list as shown (filtered, and reversed when `newestFirst`), as of the last delivery.
    private(set) var items: [Item] = []
    /// The collection's snapshot as of the last delivery.
    private(set) var base: [Item] = []
    /// The collection, once started.
    private(set) var collection: LiveCollection<Item>?
    private var loader: (@Sendable (Int?) async -> Void)?
    private var token: NotificationToken?
    /// The loading status of the last delivery.
    private var deliveredLoading: LoadingStatus?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Whether the list shows the collection reversed (newest first over an oldest-first list).
    let newestFirst: Bool
    /// Which elements the list shows.
    private let isIncluded: (Item) -> Bool

    /// Called before the list changes (`items` still shows the old state).
    var willChange: (() -> Void)?
    /// Called with the changes, `items` showing the new state.
    var didChange: (([ListChange<Item>]) -> Void)?
    /// Called after every delivery (for statuses), with the collection as delivered.
    var didDeliver: ((LiveCollection<Item>, CollectionChange?) -> Void)?

    init(newestFirst: Bool = false, isIncluded: @escaping (Item) -> Bool = { _ in true }) {
        self.newestFirst = newestFirst
        self.isIncluded = isIncluded
    }

    var isStarted: Bool { collection != nil }

    /// - Throws: `ChatError.invalidArgument(field: "limit")` unless `limit` is in
    ///   1…`ChannelListQuery.maximumPageSize`.
    nonisolated static func validate(limit: Int) throws {
        guard (1...ChannelListQuery.maximumPageSize).contains(limit) else {
            throw ChatError.invalidArgument(
                field: "limit", reason: "must be between 1 and \(ChannelListQuery.maximumPageSize)")
        }
    }

    /// Whether more elements can load, in the direction the list grows (`true` before start).
    var hasMore: Bool {
        guard let collection else { return true }
        return newestFirst ? collection.hasPrevious : collection.hasNext
    }

    /// Starts showing `list` (a repository's); nothing loads before ``load(limit:)``.
    func start(_ list: PagedLiveList<Item>) {
        collection = list.collection
        loader = list.loadPage
        token = list.collection.observe { [weak self] collection, change, _ in
            self?.deliver(collection, change)
        }
    }

    /// Loads the next page and returns once the list shows it (``loadError`` tells whether it
    /// failed).
    func load(limit: Int?) async {
        await loader?(limit)
        await settled()
    }

    /// Returns once the list shows the collection's newest state and no page is loading.
    func settled() async {
        if !isSettled {
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    /// The error of the last load, if it failed.
    var loadError: (any Error)? {
        guard let collection, collection.loadingStatus == .error || collection.dataStatus == .error else { return nil }
        return collection.error ?? ChatError.unavailable("the list could not load")
    }

    private var isSettled: Bool {
        guard let collection, let deliveredLoading, deliveredLoading != .loading,
            collection.loadingStatus != .loading
        else { return false }
        return base == collection.snapshots
    }

    private func deliver(_ collection: LiveCollection<Item>, _ change: CollectionChange?) {
        let new = collection.snapshots
        let changes = ListChange.changes(
            from: change ?? CollectionChange(from: base, to: new), old: base, new: new, isIncluded: isIncluded,
            newestFirst: newestFirst)
        deliveredLoading = collection.loadingStatus
        if !changes.isEmpty { willChange?() }
        base = new
        items = ListChange.shown(new, isIncluded: isIncluded, newestFirst: newestFirst)
        if !changes.isEmpty { didChange?(changes) }
        didDeliver?(collection, change)
        if isSettled, !waiters.isEmpty {
            let waiting = waiters
            waiters.removeAll()
            for waiter in waiting { waiter.resume() }
        }
    }
}
