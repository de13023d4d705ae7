import ChatAPI

/// Channel lists: a ``ChannelListQuery``'s filter and sort, growing forward, over the channels
/// the viewing user may see.
struct ChannelListSpec: LiveQuerySpec {
    let query: ChannelListQuery

    var storageKey: String? { Self.storageKey("channels", query) }

    var growth: WindowGrowth { .forward }

    func validate() throws { try query.validate() }

    func sortKey(for channel: Channel) -> SortKey { query.sortKey(for: channel) }

    /// Visible to the viewer (see ``isVisible(_:to:)``) and matching the filter. Conditions on
    /// other users' membership cannot be judged by the client (it knows only its own); for
    /// those it trusts the server (`isConfirmed`).
    func matches(_ channel: Channel, in context: QueryContext, isConfirmed: () -> Bool) -> Bool {
        guard Self.isVisible(channel, to: context) else { return false }
        return query.filter.matches(channel) { userId in
            userId == context.viewerId ? channel.currentUserMembership == .member : isConfirmed()
        }
    }

    /// The server's visibility rule, from the viewer's side: community, broadcast and standard
    /// channels are visible to everyone; live and private ones to their members, banned users
    /// and admins; conversations to their members only.
    static func isVisible(_ channel: Channel, to context: QueryContext) -> Bool {
        switch channel.type {
        case .community, .broadcast, .standard:
            true
        case .live, .private:
            channel.currentUserMembership != .none || context.isAdmin
        case .conversation:
            channel.currentUserMembership == .member
        }
    }

    func pageRequest(after boundary: Channel?, limit: Int?) -> ChatRequest {
        var page = query
        if let limit { page.pageSize = limit }
        return .queryChannels(page, after: boundary.map(query.cursor(after:)))
    }

    func page(in response: ChatResponse) throws -> QueryPage<Channel> {
        let page = try response.expected(\.channelsValue, answering: "a channel query")
        return QueryPage(items: page.items, hasMore: page.hasNext)
    }
}
