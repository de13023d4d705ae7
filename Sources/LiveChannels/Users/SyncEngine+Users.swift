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
            try await perform(.searchUsers(query, after: cursor)) { engine, response in
                guard let page = response.usersValue else {
                    throw ChatError.unavailable("the server answered a user search with something else")
                }
                engine.users.upsert(page.items)
                search.merge(page, replacing: replacing)
            }
        } catch {
            search.fail(error)
        }
    }

    /// Sends a request answered with a user, stores the user (every live handle shows it) and
    /// returns it.
    /// - Throws: the server's `ChatError`.
    func performUserRequest(_ request: ChatRequest) async throws -> User {
        try await perform(request) { engine, response in
            guard let user = response.userValue else {
                throw ChatError.unavailable("the server answered \(request) with something else")
            }
            engine.users.upsert([user])
            return user
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
}
