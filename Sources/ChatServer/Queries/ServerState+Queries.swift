import ChatAPI
import Foundation

extension ServerState {
    /// The page of channels `caller` can see that match `query`, after `cursor`, as `caller`
    /// sees them (their membership, unread count and mention flag), using the ChatAPI
    /// evaluator and keyset cursors.
    ///
    /// - Throws: `invalidArgument` for an invalid query or a cursor of another ordering.
    /// - Complexity: O(candidates × filter size + matches × log pageSize). Candidates are every
    ///   channel, or fewer when the filter names an indexed condition (the viewer's
    ///   memberships, a type, a tag; see ``candidateIds(for:viewer:)``).
    func queryChannels(_ query: ChannelListQuery, after cursor: PageCursor?, by caller: Caller, now: Date) throws(ChatError) -> Page<Channel> {
        try Self.validated { try query.validate() }
        try Self.validated { try query.validate(cursor) }
        let viewer = caller.userId
        let candidates = candidateIds(for: query.filter, viewer: viewer)
        var selection = PageSelection(ordering: query, size: query.pageSize)
        let viewerDependent = query.dependsOnViewer
        func consider(_ record: ChannelRecord) {
            guard canSee(record, caller: caller) else { return }
            if viewerDependent {
                let channel = render(record, for: viewer)
                if query.filter.matches(channel, isMember: { record.members[$0] != nil }), query.isAfter(channel, cursor: cursor) {
                    selection.offer(channel)
                }
            } else if query.filter.matches(record.info, isMember: { record.members[$0] != nil }), query.isAfter(record.info, cursor: cursor) {
                // The query reads no viewer field: the stored value is tested as it is, and
                // only the page is rendered for the viewer.
                selection.offer(record.info)
            }
        }
        if let candidates {
            for id in candidates { if let record = channels[id] { consider(record) } }
        } else {
            for index in channels.values.indices { consider(channels.values[index]) }
        }
        if viewerDependent { return selection.page(after: cursor) }
        return selection.page(after: cursor) { render(channels[$0.channelId]!, for: viewer) }
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
        var selection = PageSelection(ordering: query, size: query.pageSize)
        for member in ids.lazy.compactMap({ renderMember($0, in: channel, now: now) })
        where query.matches(member) && query.isAfter(member, cursor: cursor) {
            selection.offer(member)
        }
        return selection.page(after: cursor)
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
