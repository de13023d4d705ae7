import ChatAPI
import LiveCore

/// Told about a ``ChatChannelMemberListController``'s changes, on the main actor. Every method
/// has an empty default implementation.
@MainActor
public protocol ChatChannelMemberListControllerDelegate: DataControllerStateDelegate {
    /// The members changed; `controller.members` already shows the new list. One batch update,
    /// ordered as ``ListChange`` documents.
    func memberListController(
        _ controller: ChatChannelMemberListController, didChangeMembers changes: [ListChange<ChannelMember>])
}

extension ChatChannelMemberListControllerDelegate {
    public func memberListController(
        _ controller: ChatChannelMemberListController, didChangeMembers changes: [ListChange<ChannelMember>]
    ) {}
}

/// A channel's members as a live list (Stream's `ChatChannelMemberListController`), over the
/// same live list as `ChannelParticipation.getMembers`: members enter, leave, move and change
/// as they join, leave, are added, removed, banned, muted or change roles or profile (each
/// member's `user`, presence included, is kept live).
///
/// Loads nothing before ``synchronize(_:)`` or ``loadNextMembers(limit:completion:)``.
/// Main-actor; keeps its client alive; the delegate is held weakly.
@MainActor
public final class ChatChannelMemberListController: DataController {
    /// The client the controller works through.
    public let client: ChatClient
    /// The query.
    public let query: ChannelMemberListQuery
    /// Told about changes; held weakly.
    public weak var delegate: (any ChatChannelMemberListControllerDelegate)?
    /// Where the data comes from (see ``DataControllerState``).
    public var state: DataControllerState { lifecycle.state }

    private let binding = LiveListBinding<ChannelMember>()
    private let lifecycle = ControllerLifecycle()

    /// The loaded members, in the query's order. Empty before `synchronize`.
    public var members: [ChannelMember] { binding.items }

    /// Whether every member is loaded (no next page). `false` before `synchronize`.
    public var hasLoadedAllMembers: Bool { binding.isStarted && !binding.hasMore }

    init(client: ChatClient, query: ChannelMemberListQuery) {
        self.client = client
        self.query = query
        binding.didChange = { [unowned self] changes in delegate?.memberListController(self, didChangeMembers: changes)
        }
        binding.didDeliver = { [unowned self] list, _ in lifecycle.follow(list) }
        lifecycle.didChangeState = { [unowned self] state in delegate?.controller(self, didChangeState: state) }
    }

    /// Loads the first page (`query.pageSize` members) and follows the list; `completion` (main
    /// actor) gets `nil` once it is shown, or the error (`.notFound` for a channel the user
    /// cannot see).
    public func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await synchronize() }
    }

    /// Loads the first page; returns once `members` shows it.
    public func synchronize() async throws {
        try await lifecycle.synchronize(binding, client: client) { [self] in list }
    }

    /// Loads the next `limit` members (the first page when not synchronized); `completion`
    /// (main actor) gets `nil` once they are shown, or the error.
    public func loadNextMembers(limit: Int = 25, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await loadNextMembers(limit: limit) }
    }

    /// Loads the next `limit` members; returns once `members` shows them.
    /// - Throws: `ChatError.invalidArgument(field: "limit")`, the server's error.
    public func loadNextMembers(limit: Int = 25) async throws {
        try await lifecycle.loadNext(limit, of: binding) { [self] in list }
    }

    /// The query's live list of members, as the repository makes it.
    private var list: PagedLiveList<ChannelMember> {
        ChannelParticipation(client: client, channelId: query.channelId).pagedMembers(query.memberListQuery)
    }
}
