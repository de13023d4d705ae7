/// The entity kinds the cache file stores, one table each.
enum StoredKind: String, Sendable, CaseIterable {
    case channels, members, messages, users

    /// The kind's table (its raw value).
    var table: String { rawValue }

    /// The order in which eviction empties tables when the file is over its size: what is
    /// cheapest to load again first.
    static let evictionOrder: [StoredKind] = [.messages, .members, .users, .channels]
}
