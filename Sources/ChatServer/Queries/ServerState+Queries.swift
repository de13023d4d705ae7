import ChatAPI
import Foundation

extension ServerState {
    /// The page of channels `caller` can see that match `query`, after `cursor`, as `caller`
    /// sees them (their membership, unread count and mention flag), using the ChatAPI
    /// evaluator and keyset cursors.
    ///
    /// - Throws: `invalidArgument` for an invalid query or a cursor of another ordering.
    /// - Complexity: O(channels × filter size + matches × log pageSize).
    func queryChannels(_ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, now: Date) throws(ChatError) -> Page<Channel> {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let viewer = caller.userId
        var matches: [Channel] = []
        for record in channels.values where canSee(record, caller: caller) {
            let channel = render(record, for: viewer, now: now)
            guard query.filter.matches(channel, isMember: record.isMember) else { continue }
            if query.isAfter(channel, cursor: cursor) { matches.append(channel) }
        }
        return Self.page(of: matches, ordering: query, size: query.pageSize, after: cursor)
    }

    /// The page of a channel's members (or banned users) after `cursor`.
    ///
    /// - Throws: `invalidArgument`; `notFound` (channel unknown or invisible).
    /// - Complexity: O(members × log pageSize).
    func queryMembers(_ query: MemberListQuery, after cursor: PageCursor?, by caller: Caller, now: Date) throws(ChatError) -> Page<ChannelMember> {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let channel = try authorizedRecord(query.channelId, .view, by: caller, now: now)
        let ids = query.filter == .ban ? Array(channel.bans.keys) : Array(channel.members.keys)
        let candidates = ids.compactMap { renderMember($0, in: channel, now: now) }
            .filter { query.matches($0) && query.isAfter($0, cursor: cursor) }
        return Self.page(of: candidates, ordering: query, size: query.pageSize, after: cursor)
    }

    /// The page of users whose display name starts with the query's prefix, after `cursor`.
    ///
    /// - Throws: `invalidArgument`.
    /// - Complexity: O(users × log pageSize).
    func searchUsers(_ query: UserSearchQuery, after cursor: PageCursor?) throws(ChatError) -> Page<User> {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let candidates = users.values.filter { query.matches($0) && query.isAfter($0, cursor: cursor) }
        return Self.page(of: candidates, ordering: query, size: query.pageSize, after: cursor)
    }

    /// The first `size` of `candidates` (all after `cursor`) in `ordering`, with the cursor after
    /// the last one and whether more follow.
    ///
    /// - Complexity: O(n log size): sort keys are computed once and only a bounded selection
    ///   is kept sorted.
    static func page<Ordering: PageOrdering>(
        of candidates: [Ordering.Element], ordering: Ordering, size: Int, after cursor: PageCursor?
    ) -> Page<Ordering.Element> where Ordering.Element: Hashable & Codable {
        var best: [(key: SortKey, element: Ordering.Element)] = []
        best.reserveCapacity(size + 2)
        for element in candidates {
            let key = ordering.sortKey(for: element)
            if best.count == size + 1, let last = best.last, key.compare(last.key) != .orderedAscending { continue }
            let index = best.partitioningIndex { key.compare($0.key) == .orderedAscending }
            best.insert((key, element), at: index)
            if best.count > size + 1 { best.removeLast() }
        }
        let hasNext = best.count > size
        let items = best.prefix(size).map(\.element)
        let next = items.last.map { ordering.cursor(after: $0) } ?? cursor
        return Page(items: items, next: next, hasNext: hasNext)
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

extension Array {
    /// The first index whose element satisfies `belongsAfter`, for an array partitioned by it
    /// (binary search).
    func partitioningIndex(where belongsAfter: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
