import ChatAPI
import LiveCore

/// Users: get one as a live object, search by display name (what a "new chat" screen needs),
/// and change the current user's profile.
///
/// Live handles return at once and send their request immediately; a failure is reported as the
/// handle's `error`. A profile change made by anyone reaches every live handle (the server tells
/// every user). Thread-safe, not actor-isolated; keeps its client alive.
public final class UserRepository: Sendable {
    /// The client this repository works through.
    public let client: ChatClient

    /// A repository for the users `client` sees: profiles, search, the current user.
    public init(client: ChatClient) {
        self.client = client
    }

    /// A user as a live object: the cached value at once (`.local`), then the server's
    /// (`.fresh`), then every profile change. An unknown user reports `ChatError.notFound` as the
    /// object's `error`, with `dataStatus == .error`.
    public func getUser(_ userId: String) -> LiveObject<User> {
        client.liveEntity(
            userId, in: client.sync.users, sending: .getUser(userId: userId), retrying: nil, value: \.userValue)
    }

    /// A user, fetched from the server.
    /// - Throws: `ChatError.notFound` for an unknown user, `.invalidArgument` for a malformed id.
    public func getUser(userId: String) async throws -> User {
        try await client.user(answering: .getUser(userId: userId))
    }

    /// The users whose display name starts with `displayName`, ignoring case and diacritics
    /// ("bo" finds "Bob" and "Böhm"), ordered by folded display name then user id, as a live list.
    /// The first page loads now, `nextPage()` loads more while `hasNext`. Users enter, leave and
    /// move as their display names change; users without a display name never match, and an
    /// empty prefix matches every user that has one. A user registered after the search loaded
    /// appears on the next `nextPage()` if they sort after the window (the server announces
    /// profile changes, not new users).
    /// - Parameters:
    ///   - displayName: the prefix to match, case-insensitively.
    ///   - pageSize: users per page, 1…`ChannelListQuery.maximumPageSize`; another value
    ///     reports `ChatError.invalidArgument(field: "pageSize")` as the list's `error`.
    public func searchUsers(displayName: String, pageSize: Int = 20) -> LiveCollection<User> {
        let query = UserSearchQuery(displayNamePrefix: displayName, pageSize: pageSize)
        return LiveQuery.make(
            client: client, spec: UserSearchSpec(query: query), pageSize: pageSize, cache: client.sync.users)
    }

    /// The users whose id or display name contains `term`, ignoring case and diacritics ("ali"
    /// finds "Álison" and "malik"); `nil` or empty finds everyone. Ordered by folded display
    /// name (the id for users without one), then id, as a live list: the first page loads now,
    /// `nextPage()` loads more while `hasNext`; users enter, leave and move as their names
    /// change, and profile and presence changes show in place.
    /// - Parameters:
    ///   - term: what to look for; `nil` or empty lists everyone.
    ///   - pageSize: users per page, 1…`ChannelListQuery.maximumPageSize`; another value
    ///     reports `ChatError.invalidArgument(field: "pageSize")` as the list's `error`.
    public func searchUsers(term: String?, pageSize: Int = 20) -> LiveCollection<User> {
        let query = UserSearchQuery(term: term, pageSize: pageSize)
        return LiveQuery.make(
            client: client, spec: UserSearchSpec(query: query), pageSize: pageSize, cache: client.sync.users)
    }

    /// The same search as a live list that loads nothing until its first page is asked for
    /// (controllers).
    func pagedSearch(term: String?, pageSize: Int) -> PagedLiveList<User> {
        LiveQuery.paged(
            client: client, spec: UserSearchSpec(query: UserSearchQuery(term: term, pageSize: pageSize)),
            pageSize: pageSize, cache: client.sync.users)
    }

    /// Changes the current user's display name and/or metadata (`nil` leaves a field as it is)
    /// and returns the updated user. Every client's live handles show the change.
    /// - Throws: `ChatError.invalidArgument` (display name), `.limitExceeded` (metadata).
    @discardableResult
    public func updateCurrentUser(displayName: String?, metadata: [String: JSON]? = nil) async throws -> User {
        try await client.user(answering: .updateCurrentUser(displayName: displayName, metadata: metadata))
    }
}
