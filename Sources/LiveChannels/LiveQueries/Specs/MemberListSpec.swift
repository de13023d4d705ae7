import ChatAPI

/// Member lists: one channel's members (or banned users), filtered and sorted by a
/// ``MemberListQuery``, growing forward. Every condition is evaluated on the member record
/// itself, so the client judges membership of the list exactly as the server does.
struct MemberListSpec: LiveQuerySpec {
    let query: MemberListQuery

    var storageKey: String? { Self.storageKey("members", query) }

    var growth: WindowGrowth { .forward }

    var channelScope: String? { query.channelId }

    func validate() throws { try query.validate() }

    func sortKey(for member: ChannelMember) -> SortKey { query.sortKey(for: member) }

    func matches(_ member: ChannelMember, in context: QueryContext, isConfirmed: () -> Bool) -> Bool {
        query.matches(member)
    }

    func pageRequest(after boundary: ChannelMember?, limit: Int?) -> ChatRequest {
        var page = query
        if let limit { page.pageSize = limit }
        return .queryMembers(page, after: boundary.map(query.cursor(after:)))
    }

    func page(in response: ChatResponse) throws -> QueryPage<ChannelMember> {
        let page = try response.expected(\.memberPageValue, answering: "a member query")
        return QueryPage(items: page.items, hasMore: page.hasNext)
    }
}
