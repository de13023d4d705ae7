import ChatAPI
import LiveCore

/// Told about a ``ChatChannelListController``'s changes, on the main actor. Every method has
/// an empty default implementation.
@MainActor
public protocol ChatChannelListControllerDelegate: DataControllerStateDelegate {
    /// The channels are about to change (`controller.channels` still shows the old list).
    func controllerWillChangeChannels(_ controller: ChatChannelListController)
    /// The channels changed; `controller.channels` already shows the new list. The changes are
    /// one batch update, in the order ``ListChange`` documents.
    func controller(_ controller: ChatChannelListController, didChangeChannels changes: [ListChange<Channel>])
}

extension ChatChannelListControllerDelegate {
    public func controllerWillChangeChannels(_ controller: ChatChannelListController) {}
    public func controller(_ controller: ChatChannelListController, didChangeChannels changes: [ListChange<Channel>]) {}
}

/// A live list of the channels matching a ``ChannelListQuery`` (Stream's
/// `ChatChannelListController`), over the same live list as `ChannelRepository.getChannels(query:)`:
/// channels enter, leave and move as they start or stop matching, whoever changed them.
///
/// ```swift
/// let controller = client.channelListController(query: ChannelListQuery(filter: .containMembers(userIds: ["alice"])))
/// controller.delegate = self
/// controller.synchronize { error in }
/// ```
///
/// Loads nothing before ``synchronize(_:)`` or ``loadNextChannels(limit:completion:)``.
/// Main-actor; keeps its client alive; the delegate is held weakly.
@MainActor
public final class ChatChannelListController: DataController {
    /// The client the controller works through.
    public let client: ChatClient
    /// The query.
    public let query: ChannelListQuery
    /// Told about changes; held weakly.
    public weak var delegate: (any ChatChannelListControllerDelegate)?
    /// Where the data comes from (see ``DataControllerState``).
    public var state: DataControllerState { lifecycle.state }

    private let binding: LiveListBinding<Channel>
    private let lifecycle = ControllerLifecycle()

    /// The controller's channels: the query's loaded results accepted by the filter block, in
    /// the query's order. Empty before `synchronize`.
    public var channels: [Channel] { binding.items }

    /// Whether every matching channel is loaded (no next page). `false` before `synchronize`.
    public var hasLoadedAllChannels: Bool { binding.isStarted && !binding.hasMore }

    /// A controller of `query`'s channels; `filter`, if given, decides (on the main actor)
    /// which of the query's results are shown, on top of the query (a channel failing it is
    /// kept by the underlying list and shows as soon as it passes). Prefer query filters: the
    /// block is applied to loaded pages only, so a page may show fewer channels than its size.
    init(client: ChatClient, query: ChannelListQuery, filter: ((Channel) -> Bool)?) {
        self.client = client
        self.query = query
        binding = LiveListBinding(isIncluded: filter ?? { _ in true })
        binding.willChange = { [unowned self] in delegate?.controllerWillChangeChannels(self) }
        binding.didChange = { [unowned self] changes in delegate?.controller(self, didChangeChannels: changes) }
        binding.didDeliver = { [unowned self] collection, _ in lifecycle.follow(collection) }
        lifecycle.didChangeState = { [unowned self] state in delegate?.controller(self, didChangeState: state) }
    }

    /// Loads the first page (`query.pageSize` channels) and follows the list; `completion` (on
    /// the main actor) gets `nil` once the server's page is shown, or the error.
    public func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await synchronize() }
    }

    /// Loads the first page and returns once `channels` shows it.
    /// - Throws: `ChatError` (`.invalidArgument` for a bad query, `.unavailable`, ...).
    public func synchronize() async throws {
        try await lifecycle.synchronize(binding, client: client) { [self] in list }
    }

    /// Loads the next `limit` channels (the first page when not synchronized yet); `completion`
    /// (main actor) gets `nil` once `channels` shows them, or the error. Does nothing but call
    /// back when everything is loaded.
    public func loadNextChannels(limit: Int = 25, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await loadNextChannels(limit: limit) }
    }

    /// Loads the next `limit` channels and returns once `channels` shows them.
    /// - Throws: `ChatError.invalidArgument(field: "limit")` for a limit out of
    ///   1…`ChannelListQuery.maximumPageSize`; the server's error.
    public func loadNextChannels(limit: Int = 25) async throws {
        try await lifecycle.loadNext(limit, of: binding) { [self] in list }
    }

    /// The query's live list, as the repository makes it.
    private var list: PagedLiveList<Channel> { ChannelRepository(client: client).pagedChannels(query: query) }
}
