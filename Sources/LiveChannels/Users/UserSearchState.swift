import ChatAPI

/// The state machine of one live user search: the users whose display name matches a
/// ``UserSearchQuery`` within the loaded window, in the query's order (folded display name, then
/// user id). A pure value, mutated by the sync engine; each mutation returns the exact
/// ``CollectionChange`` it made.
///
/// As for channel lists, the window is bounded by a sort key — the key of the last user of the
/// last loaded page — not by a count, so pages have no gaps or duplicates while users rename.
struct UserSearchState: Sendable {
    let query: UserSearchQuery
    /// The listed users, their keys and the window bound.
    private var window = SortedWindow<User>()
    /// The cursor for the page after the window.
    private(set) var nextCursor: PageCursor?
    /// Whether a page load is under way.
    var isLoading = false

    init(query: UserSearchQuery) {
        self.query = query
    }

    /// The users, in query order.
    var items: [User] { window.items }

    /// Whether more users can be loaded after the window.
    var hasNext: Bool { !window.isComplete }

    /// Applies a changed (or new) user: it enters, leaves, moves or is modified in place.
    /// - Returns: the change made, or `nil` when the list did not change.
    mutating func apply(_ user: User) -> CollectionChange? {
        window.apply(user, key: query.sortKey(for: user), matches: query.matches(user))
    }

    /// Records a page the server returned: the window now ends at its last user (or is
    /// unbounded when the server has no more).
    mutating func extendWindow(with page: Page<User>) {
        let lastKey = page.items.last.map(query.sortKey(for:))
        window.extendWindow(to: lastKey, hasNext: page.hasNext)
        if let last = page.items.last, lastKey == window.windowEndKey {
            nextCursor = query.cursor(after: last)
        }
    }

    /// Forgets everything loaded (for a resync).
    mutating func reset() {
        self = UserSearchState(query: query)
    }
}
