/// A search for users, ignoring case and diacritics on both sides (`"ali"` and `"ÁLI"` both
/// find "Alicia" and "Álison"), in one of two modes:
///
/// - ``Match/displayNamePrefix`` (``init(displayNamePrefix:pageSize:)``): the display name starts
///   with the text; users without a display name never match. Ordered by folded display name,
///   then user id.
/// - ``Match/anywhere`` (``init(term:pageSize:)``, a Stream-style search): the text appears
///   anywhere in the user id or the display name; an empty term matches everyone. Ordered by
///   folded display name (the user id for users without one), then user id.
public struct UserSearchQuery: Sendable, Hashable, Codable, PageOrdering {
    /// How the text is matched.
    public enum Match: String, Sendable, Hashable, Codable {
        /// The display name starts with the text.
        case displayNamePrefix
        /// The text appears anywhere in the user id or display name.
        case anywhere
    }

    /// The text searched for (the prefix, or the term).
    public var displayNamePrefix: String
    /// How the text is matched.
    public var match: Match
    /// Users per page, 1…`ChannelListQuery.maximumPageSize`.
    public var pageSize: Int

    /// A display-name prefix search; 20 users per page by default.
    public init(displayNamePrefix: String, pageSize: Int = 20) {
        self.displayNamePrefix = displayNamePrefix
        self.match = .displayNamePrefix
        self.pageSize = pageSize
    }

    /// A search for `term` anywhere in the user id or display name; `nil` or empty finds every
    /// user.
    public init(term: String?, pageSize: Int = 20) {
        self.displayNamePrefix = term ?? ""
        self.match = .anywhere
        self.pageSize = pageSize
    }

    /// Whether `user` matches (see the type's modes).
    ///
    /// - Complexity: O(length of the id and display name).
    public func matches(_ user: User) -> Bool {
        let text = TextMatching.fold(displayNamePrefix)
        switch match {
        case .displayNamePrefix:
            guard let name = user.displayName else { return false }
            return TextMatching.fold(name).hasPrefix(text)
        case .anywhere:
            if text.isEmpty { return true }
            return TextMatching.fold(user.userId).contains(text)
                || user.displayName.map { TextMatching.fold($0).contains(text) } ?? false
        }
    }

    /// Throws `ChatError.invalidArgument(field: "pageSize")` when the page size is out of range.
    public func validate() throws {
        try PageSize.validate(pageSize)
    }

    /// Identifies the query's sort order: equal for queries whose pages can share a cursor.
    public var orderingFingerprint: String { match == .anywhere ? "users.anywhere" : "users" }

    /// The key a user sorts by in this query (its keyset cursor).
    public func sortKey(for user: User) -> SortKey {
        let name = match == .anywhere ? (user.displayName ?? user.userId) : user.displayName
        return SortKey(values: [name.map(SortValue.text) ?? .missing], ascending: [true], id: user.userId)
    }
}

extension UserSearchQuery {
    /// Decodes a query; `match` (display-name prefix) and `pageSize` (20) may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            displayNamePrefix: try container.decode(String.self, forKey: .displayNamePrefix),
            pageSize: try container.decodeIfPresent(Int.self, forKey: .pageSize) ?? 20)
        match = try container.decodeIfPresent(Match.self, forKey: .match) ?? .displayNamePrefix
    }
}
