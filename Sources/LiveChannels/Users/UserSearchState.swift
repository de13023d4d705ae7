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
    /// The matching users in the window, in query order.
    private(set) var items: [User] = []
    private var keys: [SortKey] = []
    private var keyById: [String: SortKey] = [:]
    /// The key of the last user of the last loaded page; `nil` before the first page.
    private var windowEndKey: SortKey?
    /// The cursor for the page after the window.
    private(set) var nextCursor: PageCursor?
    /// Whether the server had nothing after the window: the window is then unbounded.
    private(set) var isComplete = false
    /// Whether a page load is under way.
    var isLoading = false

    init(query: UserSearchQuery) {
        self.query = query
    }

    /// Whether more users can be loaded after the window.
    var hasNext: Bool { !isComplete }

    private func isInWindow(_ key: SortKey) -> Bool {
        if isComplete { return true }
        guard let windowEndKey else { return false }
        return key <= windowEndKey
    }

    /// Applies a changed user: it enters, leaves, moves or is modified in place.
    /// - Returns: the change made, or `nil` when the list did not change.
    /// - Complexity: O(log n) to place it, plus O(n) to shift the arrays.
    mutating func apply(_ user: User) -> CollectionChange? {
        let oldIndex = keyById[user.userId].map(index(of:))
        let key = query.sortKey(for: user)
        let belongs = query.matches(user) && isInWindow(key)
        switch (oldIndex, belongs) {
        case (nil, false):
            return nil
        case (let old?, false):
            removeItem(at: old, id: user.userId)
            return CollectionChange(deletions: [old])
        case (nil, true):
            return CollectionChange(insertions: [insertItem(user, key: key)])
        case (let old?, true):
            if items[old] == user { return nil }
            removeItem(at: old, id: user.userId)
            let new = insertItem(user, key: key)
            return old == new
                ? CollectionChange(modifications: [old], modificationsInNew: [new])
                : CollectionChange(moves: [.init(from: old, to: new, isModified: true)])
        }
    }

    /// Records a page: the window now ends at its last user (or is unbounded when the server
    /// has no more). The caller then applies the page's users.
    mutating func extendWindow(with page: Page<User>) {
        if let last = page.items.last {
            let key = query.sortKey(for: last)
            if windowEndKey.map({ $0 < key }) ?? true {
                windowEndKey = key
                nextCursor = query.cursor(after: last)
            }
        }
        isComplete = !page.hasNext
    }

    /// Forgets everything (to reload from the first page).
    mutating func reset() {
        self = UserSearchState(query: query)
    }

    private func index(of key: SortKey) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private mutating func removeItem(at index: Int, id: String) {
        items.remove(at: index)
        keys.remove(at: index)
        keyById[id] = nil
    }

    private mutating func insertItem(_ user: User, key: SortKey) -> Int {
        let index = index(of: key)
        items.insert(user, at: index)
        keys.insert(key, at: index)
        keyById[user.userId] = key
        return index
    }
}
