import ChatAPI
import LiveCore

/// Participation in one channel, Amity style: its members as a live list, adding and removing
/// members, and telling the server when this device is reading the channel.
///
/// ```swift
/// let participation = ChannelParticipation(client: client, channelId: "channel1")
/// let members = participation.getMembers(filter: .all, sortBy: .firstCreated, roles: [])
/// try await participation.addMembers(["user1", "user2"])
/// participation.startReading()
/// ```
///
/// A write made through an `async` call is visible in every live handle (member lists, channel
/// objects and lists) by the time the call returns. Completion forms send at once and call back
/// on the main actor. Thread-safe; keeps its client alive.
public final class ChannelParticipation: Sendable {
    /// The client this participation works through.
    public let client: ChatClient
    /// The channel.
    public let channelId: String
    /// Keeps reading requests in the order they were made.
    private let readingRequests = RequestSequence()

    /// Participation in `channelId`. Sends nothing.
    public init(client: ChatClient, channelId: String) {
        self.client = client
        self.channelId = channelId
    }

    /// The seed's spelling: `ChannelParticipation(client: client, andChannel: "channel1")`.
    public convenience init(client: ChatClient, andChannel channelId: String) {
        self.init(client: client, channelId: channelId)
    }

    // MARK: Members

    /// The channel's members as a live list: cached members at once, then the first page (of
    /// `pageSize`); `nextPage()` loads more.
    ///
    /// Members enter, leave, move and change in the list as they join, leave, are added,
    /// removed, banned, unbanned, muted, unmuted or change roles — from events, and from this
    /// client's own calls. The list is kept current by the member events the server sends to
    /// the channel's members; for a channel the user is not a member of, it shows what its
    /// pages returned.
    ///
    /// - Parameters:
    ///   - filter: `.all` (current members, muted ones included), `.mute` (muted members) or
    ///     `.ban` (banned users).
    ///   - sortBy: `.firstCreated` (earliest joined first) or `.lastCreated`; ties by user id.
    ///     A banned user sorts by when they were banned.
    ///   - roles: only members with at least one of these roles; empty means any.
    ///   - pageSize: members per page, 1…`ChannelListQuery.maximumPageSize`.
    /// - Returns: at once. Errors (`.notFound` for a channel the user cannot see,
    ///   `.invalidArgument` for a bad page size) are reported as the collection's `error`.
    public func getMembers(
        filter: MemberFilter = .all, sortBy: MemberSort = .firstCreated, roles: [String] = [], pageSize: Int = 20
    ) -> LiveCollection<ChannelMember> {
        LiveQuery.make(
            client: client,
            spec: MemberListSpec(
                query: MemberListQuery(
                    channelId: channelId, filter: filter, sortBy: sortBy, roles: roles, pageSize: pageSize)),
            pageSize: pageSize, cache: client.sync.members)
    }

    /// The members `query` selects (of this channel: its `channelId` is ignored) as a live
    /// list that loads nothing until its first page is asked for (controllers).
    func pagedMembers(_ query: MemberListQuery) -> PagedLiveList<ChannelMember> {
        var query = query
        query.channelId = channelId
        return LiveQuery.paged(
            client: client, spec: MemberListSpec(query: query), pageSize: query.pageSize, cache: client.sync.members)
    }

    /// Adds users as members (users who are members already are skipped).
    /// - Returns: the users' member records after the change.
    /// - Throws: `ChatError.notAllowed` (conversations), `.forbidden` (no permission, e.g. in a
    ///   broadcast channel; or a named user is banned), `.invalidArgument(field: "userIds")`
    ///   (malformed or unknown users), `.notFound`, `.limitExceeded` (300,000 members).
    @discardableResult
    public func addMembers(_ userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .addMembers(channelId: channelId, userIds: userIds))
    }

    /// Adds users as members; `completion` (on the main actor, optional) gets whether it
    /// worked and the error. Sends at once.
    public func addMembers(
        _ userIds: [String], completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?
    ) {
        CompletionReporter.run(completion) { [self] in try await addMembers(userIds) }
    }

    /// Removes members (users who are not members are skipped). Removing yourself is leaving;
    /// see `ChannelRepository.leaveChannel(_:)`.
    /// - Returns: the users' records after the change (membership `.none`).
    /// - Throws: `ChatError.notAllowed` (conversations), `.forbidden` (only moderators and
    ///   admins remove members), `.invalidArgument(field: "userIds")`, `.notFound`.
    @discardableResult
    public func removeMembers(_ userIds: [String]) async throws -> [ChannelMember] {
        try await client.members(answering: .removeMembers(channelId: channelId, userIds: userIds))
    }

    /// Removes members; `completion` (on the main actor, optional) gets whether it worked and
    /// the error. Sends at once.
    public func removeMembers(
        _ userIds: [String], completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?
    ) {
        CompletionReporter.run(completion) { [self] in try await removeMembers(userIds) }
    }

    // MARK: Reading

    /// Tells the server this device is reading the channel: the user's read marker moves to the
    /// newest message and follows new ones (unread count 0) until every device of the user
    /// stops reading or disconnects. Fire-and-forget: failures (e.g. not a member) are dropped.
    ///
    /// Reading calls of one participation reach the server in the order they were made,
    /// whichever form was used. Unavailable from asynchronous contexts: there, write
    /// `try await participation.startReading()`, which reports failures. (In top-level code
    /// Swift 6.3 resolves the name to this form whatever is written, so the attribute turns that
    /// silent mistake into a compile error; call it from inside an `async` function or a `Task`.)
    @available(
        *, noasync, message: "fire-and-forget: drops errors; use 'try await startReading()' from an async function"
    )
    public func startReading() {
        readingRequests.submit { [self] in try await sendStartReading() }
    }

    /// Tells the server this device is reading the channel (as the fire-and-forget form does) and
    /// returns once the channel, with its unread count, is updated in every live handle.
    /// - Throws: `ChatError.forbidden` (not a member), `.notFound`.
    public func startReading() async throws {
        try await readingRequests.submit { [self] in try await sendStartReading() }.value
    }

    /// Tells the server this device stopped reading the channel: the read marker stays where it
    /// is and the unread count grows again with new messages. Fire-and-forget; ordered with the
    /// other reading calls. Unavailable from asynchronous contexts: there, write
    /// `try await participation.stopReading()`.
    @available(
        *, noasync, message: "fire-and-forget: drops errors; use 'try await stopReading()' from an async function"
    )
    public func stopReading() {
        readingRequests.submit { [self] in try await sendStopReading() }
    }

    /// Tells the server this device stopped reading the channel; returns once it has.
    /// - Throws: `ChatError.notFound` (channel not visible).
    public func stopReading() async throws {
        try await readingRequests.submit { [self] in try await sendStopReading() }.value
    }

    private func sendStartReading() async throws {
        _ = try await client.channel(answering: .startReading(channelId: channelId))
    }

    private func sendStopReading() async throws {
        _ = try await client.sync.perform(.stopReading(channelId: channelId))
    }
}
