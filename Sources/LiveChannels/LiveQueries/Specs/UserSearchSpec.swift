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
        let page = try response.expected(\.usersValue, answering: "a user search")
        return QueryPage(items: page.items, hasMore: page.hasNext)
    }
}
