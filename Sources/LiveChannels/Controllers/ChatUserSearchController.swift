import ChatAPI
import LiveCore

/// Told about a ``ChatUserSearchController``'s changes, on the main actor. Every method has an
/// empty default implementation.
@MainActor
public protocol ChatUserSearchControllerDelegate: DataControllerStateDelegate {
    /// The users changed (a new search, a page, a profile or presence change); `userArray`
    /// already shows the new list. One batch update, ordered as ``ListChange`` documents.
    func controller(_ controller: ChatUserSearchController, didChangeUsers changes: [ListChange<User>])
}

extension ChatUserSearchControllerDelegate {
    public func controller(_ controller: ChatUserSearchController, didChangeUsers changes: [ListChange<User>]) {}
}

/// A user search (Stream's `ChatUserSearchController`, what a "new chat" screen needs): the
/// users whose id or display name contains the term, ignoring case and diacritics, ordered by
/// display name (the id for users without one) then id, paged and live (profiles and presence
/// change in place, users enter and leave as their names change). Over the same live list as
/// `UserRepository.searchUsers(term:pageSize:)`.
///
/// Loads nothing before ``search(term:completion:)``, ``synchronize(_:)`` (everyone) or
/// ``loadNextUsers(limit:completion:)``. Main-actor; keeps its client alive; the delegate is
/// held weakly.
@MainActor
public final class ChatUserSearchController: DataController {
    /// The client the controller works through.
    public let client: ChatClient
    /// Told about changes; held weakly.
    public weak var delegate: (any ChatUserSearchControllerDelegate)?
    /// Where the data comes from (see ``DataControllerState``).
    public var state: DataControllerState { lifecycle.state }
    /// The term of the current search (`nil` or empty: everyone).
    public private(set) var term: String?
    /// Users per page.
    public let pageSize: Int

    private var binding: LiveListBinding<User>?
    /// The state; each search starts a list of its own (see ``search(term:)``).
    private let lifecycle = ControllerLifecycle()

    /// The users found so far, in the search's order. Empty before the first search.
    public var userArray: [User] { binding?.items ?? [] }

    /// Whether every matching user is loaded. `false` before the first search.
    public var hasLoadedAllUsers: Bool { binding.map { $0.isStarted && !$0.hasMore } ?? false }

    init(client: ChatClient, pageSize: Int = 25) {
        self.client = client
        self.pageSize = pageSize
        lifecycle.didChangeState = { [unowned self] state in delegate?.controller(self, didChangeState: state) }
    }

    /// Starts a search for `term` (replacing the previous one; its users leave `userArray` as
    /// removes, the new ones enter as inserts); `completion` (main actor) gets `nil` once the
    /// first page is shown, or the error.
    public func search(term: String?, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await search(term: term) }
    }

    /// Starts a search for `term`; returns once `userArray` shows its first page.
    public func search(term: String?) async throws {
        self.term = term
        let previous = binding?.items ?? []
        let binding = LiveListBinding<User>()
        self.binding = binding
        binding.didChange = { [unowned self, unowned binding] changes in
            guard self.binding === binding else { return }
            delegate?.controller(self, didChangeUsers: changes)
        }
        binding.didDeliver = { [unowned self, unowned binding] list, _ in
            guard self.binding === binding else { return }
            lifecycle.follow(list)
        }
        if !previous.isEmpty {
            // The old results leave (the new search's first delivery inserts into an empty list).
            let removals = previous.indices.reversed().map {
                ListChange.remove(previous[$0], index: ListChange<User>.row($0))
            }
            delegate?.controller(self, didChangeUsers: removals)
        }
        binding.start(UserRepository(client: client).pagedSearch(term: term, pageSize: pageSize))
        await binding.load(limit: nil)
        if let error = binding.loadError { throw error }
    }

    /// Searches everyone (the last term again, if there was a search).
    public func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        search(term: term, completion: completion)
    }

    /// Searches everyone (the last term again, if there was a search); returns once the first
    /// page is shown.
    public func synchronize() async throws {
        try await search(term: term)
    }

    /// Loads the next `limit` users of the current search (searching everyone first if there
    /// was no search); `completion` (main actor) gets `nil` once they are shown, or the error.
    public func loadNextUsers(limit: Int = 25, completion: (@MainActor (_ error: (any Error)?) -> Void)? = nil) {
        report(to: completion) { [self] in try await loadNextUsers(limit: limit) }
    }

    /// Loads the next `limit` users; returns once `userArray` shows them.
    /// - Throws: `ChatError.invalidArgument(field: "limit")`, the server's error.
    public func loadNextUsers(limit: Int = 25) async throws {
        try LiveListBinding<User>.validate(limit: limit)
        guard let binding else {
            try await search(term: term)
            return
        }
        await binding.settled()
        await binding.load(limit: limit)
        if let error = binding.loadError { throw error }
    }
}
