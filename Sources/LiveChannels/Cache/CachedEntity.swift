import ChatAPI

/// An entity the client caches: versioned by the server and identified by a string. Values of
/// one entity replace each other by version, never older over newer (``EntityCache``).
protocol CachedEntity: Versioned, Equatable, Sendable where ID == String {
    /// The entity's key in its cache: unique among all entities of the kind (a member's `id`
    /// is unique only within its channel).
    var cacheKey: String { get }
}

extension CachedEntity {
    var cacheKey: String { id }
}

extension Channel: CachedEntity {}
extension Message: CachedEntity {}
extension User: CachedEntity {}
extension ChannelMember: CachedEntity {
    var cacheKey: String { channelId + "\u{1F}" + userId }
}
