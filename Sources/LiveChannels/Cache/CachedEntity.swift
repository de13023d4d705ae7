import ChatAPI

/// An entity the client caches: versioned by the server and identified by a string. Values of
/// one entity replace each other by version, never older over newer (``EntityCache``).
protocol CachedEntity: Versioned, Equatable, Sendable where ID == String {
    /// The entity's key in its cache: unique among all entities of the kind (a member's `id`
    /// is unique only within its channel).
    var cacheKey: String { get }

    /// This value, about to replace `cached` (which is not newer): parts the cache knows in a
    /// newer form than this value carries are kept (a member's embedded user profile).
    func merging(cached: Self) -> Self
}

extension CachedEntity {
    var cacheKey: String { id }
    func merging(cached: Self) -> Self { self }
}

extension Channel: CachedEntity {}
extension Message: CachedEntity {}
extension User: CachedEntity {}
extension ChannelMember: CachedEntity {
    var cacheKey: String { channelId + "\u{1F}" + userId }

    /// Keeps the cached profile when it is newer than the one this value embeds.
    func merging(cached: ChannelMember) -> ChannelMember {
        guard let known = cached.user, known.version > (user?.version ?? -1) else { return self }
        var merged = self
        merged.user = known
        return merged
    }
}
