import ChatAPI

extension ByTypesChannelQueryBuilder {
    /// A query for the channel types named in `typeNames` by their raw values (`"standard"`,
    /// `"private"`, `"conversation"`, `"broadcast"`, `"community"`, `"live"`; exact, lowercase),
    /// as the Amity seed passes them:
    ///
    /// ```swift
    /// let names: Set<String> = ["standard", "private"]
    /// let builder = try ByTypesChannelQueryBuilder(types: names, channelQueryFilter: .all,
    ///                                              includingTags: nil, excludingTags: nil)
    /// ```
    ///
    /// An unknown name is a mistake that would otherwise silently shrink the list, so it throws
    /// rather than being ignored. An empty set is accepted and, as with `Set<ChannelType>`,
    /// lists no channel. (A bare `[]` literal is ambiguous between this initializer and the
    /// `Set<ChannelType>` one; write `Set<ChannelType>()`.)
    ///
    /// - Throws: `ChatError.invalidArgument(field: "types", …)` naming the first unknown name in
    ///   sorted order.
    public init(
        types typeNames: Set<String>, channelQueryFilter: ChannelQueryFilter = .all,
        includingTags: [String]? = nil, excludingTags: [String]? = nil,
        includeDeleted: Bool = false, sortBy: [Sorting] = [.default], pageSize: Int = 20
    ) throws(ChatError) {
        var types = Set<ChannelType>()
        for name in typeNames.sorted() {
            guard let type = ChannelType(rawValue: name) else {
                let known = ChannelType.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidArgument(
                    field: "types",
                    reason: "unknown channel type '\(name)'; expected one of \(known)")
            }
            types.insert(type)
        }
        self.init(
            types: types, channelQueryFilter: channelQueryFilter, includingTags: includingTags,
            excludingTags: excludingTags, includeDeleted: includeDeleted, sortBy: sortBy,
            pageSize: pageSize)
    }
}
