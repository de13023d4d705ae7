import ChatAPI

/// User searches: the users a ``UserSearchQuery`` matches, in its order, growing forward.
struct UserSearchSpec: LiveQuerySpec {
    let query: UserSearchQuery

    var storageKey: String? { Self.storageKey("users", query) }

    var growth: WindowGrowth { .forward }

    func validate() throws { try query.validate() }

    func sortKey(for user: User) -> SortKey { query.sortKey(for: user) }

    func matches(_ user: User, in context: QueryContext, isConfirmed: () -> Bool) -> Bool {
        query.matches(user)
    }

    func pageRequest(after boundary: User?, limit: Int?) -> ChatRequest {
        var page = query
        if let limit { page.pageSize = limit }
        return .searchUsers(page, after: boundary.map(query.cursor(after:)))
    }

    func page(in response: ChatResponse) throws -> QueryPage<User> {
        guard let page = response.usersValue else {
            throw ChatError.unavailable("the server answered a user search with something else")
        }
        return QueryPage(items: page.items, hasMore: page.hasNext)
    }
}
