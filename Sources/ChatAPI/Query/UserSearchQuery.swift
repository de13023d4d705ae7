/// A search for users whose display name starts with a prefix, ignoring case and diacritics
/// on both sides (`"ali"` and `"ÁLI"` both find "Alicia" and "Álison").
/// Results are ordered by folded display name, then user id.
public struct UserSearchQuery: Sendable, Hashable, Codable, PageOrdering {
    /// The prefix; empty matches every user with a display name.
    public var displayNamePrefix: String
    /// Users per page, 1…`ChannelListQuery.maximumPageSize`.
    public var pageSize: Int

    /// A search; 20 users per page by default.
    public init(displayNamePrefix: String, pageSize: Int = 20) {
        self.displayNamePrefix = displayNamePrefix
        self.pageSize = pageSize
    }

    /// Whether `user`'s display name starts with the prefix (folded); users without a display
    /// name never match.
    ///
    /// - Complexity: O(length of the display name).
    public func matches(_ user: User) -> Bool {
        guard let name = user.displayName else { return false }
        return TextMatching.fold(name).hasPrefix(TextMatching.fold(displayNamePrefix))
    }

    /// Throws `ChatError.invalidArgument(field: "pageSize")` when the page size is out of range.
    public func validate() throws {
        try PageSize.validate(pageSize)
    }

    public var orderingFingerprint: String { "users" }

    public func sortKey(for user: User) -> SortKey {
        SortKey(
            values: [user.displayName.map(SortValue.text) ?? .missing], ascending: [true],
            id: user.userId)
    }
}
