import ChatAPI
import Foundation

extension ServerState {
    /// The page of channels `caller` can see that match `query`, after `cursor`, as `caller`
    /// sees them (their membership, unread count and mention flag), using the ChatAPI
    /// evaluator and keyset cursors.
    ///
    /// Planned by estimated cost: a query sorted by an indexed key (``ChannelSortIndexes``)
    /// walks that index from the cursor and stops when the page is full, unless a set index
    /// (``candidateIds(for:viewer:)``) names so few candidates that testing them all is
    /// cheaper; every other query tests its candidates (every channel when no set index
    /// applies). All plans give the same page.
    ///
    /// - Throws: `invalidArgument` for an invalid query or a cursor of another ordering.
    /// - Complexity: walking: O(log n + w × filter size) for the w channels walked (about
    ///   pageSize / the share of channels that match, at most n); testing candidates:
    ///   O(candidates × filter size + matches × log pageSize).
    func queryChannels(_ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, now: Date)
        throws(ChatError) -> Page<Channel>
    {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let candidates = candidateIds(for: query.filter, viewer: caller.userId)
        if sortIndexes.canWalk(query.sort) {
            // A walk meets a match about every n / candidates channels when candidates are
            // known; with a budget of `candidates` channels it never costs more than testing
            // them all once more.
            let budget = candidates?.count ?? Int.max
            let walkEstimate = candidates.map { (query.pageSize + 1) * (channels.count / max($0.count, 1)) } ?? 0
            if walkEstimate < budget,
                let page = walkedPage(query, after: cursor, by: caller, among: candidates, budget: budget)
            {
                return page
            }
        }
        return scannedPage(query, after: cursor, by: caller, among: candidates)
    }

    /// The page of `query` after `cursor` found by testing every channel of `candidates` (every
    /// channel when `nil`) and keeping the first `pageSize` in the query's order.
    ///
    /// - Complexity: O(candidates × filter size + matches × log pageSize).
    private func scannedPage(
        _ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, among candidates: Set<String>?
    ) -> Page<Channel> {
        var selection = PageSelection(ordering: query, size: query.pageSize)
        let viewerDependent = query.dependsOnViewer
        func consider(_ record: ChannelRecord) {
            if let value = matchingValue(of: record, for: query, by: caller, viewerDependent: viewerDependent),
                query.isAfter(value, cursor: cursor)
            {
                selection.offer(value)
            }
        }
        if let candidates {
            for id in candidates { if let record = channels[id] { consider(record) } }
        } else {
            for index in channels.values.indices { consider(channels.values[index]) }
        }
        if viewerDependent { return selection.page(after: cursor) }
        return selection.page(after: cursor) { render(channels[$0.channelId]!, for: caller.userId) }
    }

    /// The value of `record` that `query` is evaluated on, if `caller` can see it and it
    /// matches the filter: rendered for the caller when the query reads viewer fields, the
    /// stored value otherwise (only the page is rendered then).
    ///
    /// - Complexity: O(filter size).
    func matchingValue(of record: ChannelRecord, for query: ChannelListQuery, by caller: Caller, viewerDependent: Bool)
        -> Channel?
    {
        guard canSee(record, caller: caller) else { return nil }
        let value = viewerDependent ? render(record, for: caller.userId) : record.info
        return query.filter.matches(value, isMember: { record.members[$0] != nil }) ? value : nil
    }

    /// The page of a channel's members (or banned users) after `cursor`.
    ///
    /// A large channel's members (``ChannelRecord/memberOrder``) are walked in the page's
    /// order from the cursor until the page is full, within a budget of
    /// ``memberWalkBudget`` members (a filter that matches few of them, such as a rare role,
    /// tests them all instead); banned users are tested all.
    ///
    /// - Throws: `invalidArgument`; `notFound` (channel unknown or invisible).
    /// - Complexity: walking: O(log n + w) for the w members walked; otherwise
    ///   O(members × log pageSize).
    func queryMembers(_ query: MemberListQuery, after cursor: PageCursor?, by caller: Caller, now: Date)
        throws(ChatError) -> Page<ChannelMember>
    {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let channel = try authorizedRecord(query.channelId, .view, by: caller, now: now)
        if query.filter != .ban, let order = channel.memberOrder,
            let page = walkedMembers(query, after: cursor, in: channel, order: order, now: now)
        {
            return page
        }
        let ids = query.filter == .ban ? Array(channel.bans.keys) : Array(channel.members.keys)
        var selection = PageSelection(ordering: query, size: query.pageSize)
        for member in ids.lazy.compactMap({ renderMember($0, in: channel, now: now) })
        where query.matches(member) && query.isAfter(member, cursor: cursor) {
            selection.offer(member)
        }
        return selection.page(after: cursor)
    }

    /// Members a member page walks before it tests every member instead.
    static let memberWalkBudget = 4_096

    /// The page of `query` found by walking `order` from the cursor (`nil` past the budget).
    private func walkedMembers(
        _ query: MemberListQuery, after cursor: PageCursor?, in channel: ChannelRecord, order: OrderedIndex<SortValue>,
        now: Date
    ) -> Page<ChannelMember>? {
        var found: [ChannelMember] = []
        var walked = 0
        var gaveUp = false
        let start = cursor.flatMap { cursor in cursor.key.values.first.map { (key: $0, id: cursor.key.id) } }
        order.forEach(keysAscending: query.sortBy == .firstCreated, after: start) { entry in
            walked += 1
            if walked > Self.memberWalkBudget {
                gaveUp = true
                return false
            }
            guard let member = renderMember(entry.id, in: channel, now: now), query.matches(member) else { return true }
            found.append(member)
            return found.count <= query.pageSize
        }
        if gaveUp { return nil }
        let items = Array(found.prefix(query.pageSize))
        let next = items.last.map { query.cursor(after: $0) } ?? cursor
        return Page(items: items, next: next, hasNext: found.count > query.pageSize)
    }

    /// The page of users whose display name starts with the query's prefix, after `cursor`.
    ///
    /// - Throws: `invalidArgument`.
    /// - Complexity: O(users × log pageSize).
    func searchUsers(_ query: UserSearchQuery, after cursor: PageCursor?) throws(ChatError) -> Page<User> {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        var selection = PageSelection(ordering: query, size: query.pageSize)
        for user in users.values where query.matches(user) && query.isAfter(user, cursor: cursor) {
            selection.offer(user)
        }
        return selection.page(after: cursor)
    }

    /// Runs a ChatAPI validation, passing on its `ChatError`.
    static func validated(_ body: () throws -> Void) throws(ChatError) {
        do {
            try body()
        } catch let error as ChatError {
            throw error
        } catch {
            throw .invalidArgument(field: "query", reason: "\(error)")
        }
    }
}
