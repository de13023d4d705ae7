import ChatAPI
import LiveCore

extension SyncEngine {
    /// Loads the page after `search`'s window and merges it. The caller marked the search as
    /// loading (``LiveUserSearch/startLoading()``).
    /// - Parameter replacing: start over from the first page (a resync).
    func loadNextPage(of search: LiveUserSearch, replacing: Bool = false) async {
        let (query, cursor) = search.withState { ($0.query, replacing ? nil : $0.nextCursor) }
        do {
            try query.validate()
            try await performApplying(.searchUsers(query, after: cursor), recordedBy: users) { response, newer in
                guard let page = response.usersValue else {
                    throw ChatError.unavailable("the server answered a user search with something else")
                }
                users.upsert(Self.latest(page.items, newer: newer))
                search.merge(page, then: newer, replacing: replacing)
            }
        } catch {
            search.fail(error)
        }
    }

    /// Sends a request answered with a user, stores the user (every live handle shows it) and
    /// returns it, brought up to date with any newer event.
    /// - Throws: the server's `ChatError`.
    func performUserRequest(_ request: ChatRequest) async throws -> User {
        try await performApplying(request, recordedBy: users) { response, newer in
            guard let user = response.userValue else {
                throw ChatError.unavailable("the server answered \(request) with something else")
            }
            let latest = Self.latest([user], newer: newer)
            users.upsert(latest)
            return latest[0]
        }
    }

    /// Reloads every live user object and search after a reconnect that could not resume.
    func resyncUsers() async {
        for userId in users.observedUserIds {
            _ = try? await performUserRequest(.getUser(userId: userId))
        }
        for search in users.liveSearches {
            search.withState { $0.isLoading = true }
            await loadNextPage(of: search, replacing: true)
        }
    }

    /// `users`, each replaced by its version in `newer` (events applied after the response) if
    /// any.
    private static func latest(_ users: [User], newer: [User]) -> [User] {
        guard !newer.isEmpty else { return users }
        var newest: [String: User] = [:]
        for user in newer { newest[user.userId] = user }
        return users.map { newest[$0.userId] ?? $0 }
    }
}
