import RowCoding
import ChatAPI

/// An entity the client caches: versioned by the server and identified by a string. Values of
/// one entity replace each other by version, never older over newer (``EntityCache``).
/// ``RowCodable``, so the cache can be stored on disk (``CacheStore``).
protocol CachedEntity: Versioned, Equatable, Sendable, RowCodable where ID == String {
    /// The entity's key in its cache: unique among all entities of the kind (a member's `id`
    /// is unique only within its channel).
    var cacheKey: String { get }

    /// This value, about to replace `cached` (which is not newer): parts the cache knows in a
    /// newer form than this value carries are kept (a member's embedded user profile).
    func merging(cached: Self) -> Self
    /// Which table of the cache file holds the kind.
    static var storedKind: StoredKind { get }
    /// Where values wait in a write batch.
    static var pendingValues: WritableKeyPath<PendingWrites, [String: Self]> { get }
    /// The channel the value belongs to, for kinds stored per channel ("" otherwise).
    var storedScope: String { get }
    /// The value's order within its scope (a message's sequence), for eviction.
    var storedOrdinal: Int { get }
    /// Whether eviction must keep the value (a channel the user is a member of, a message kept
    /// on the device only).
    var isPinned: Bool { get }
    /// Whether the value lives on the device only, not (yet) stored by the server: a message in
    /// the outbox. No page of the server speaks for it (it is judged by the list's matching,
    /// whatever the page's revision), and the cache never evicts it.
    var isLocal: Bool { get }
}

extension CachedEntity {
    var cacheKey: String { id }
    func merging(cached: Self) -> Self { self }
    var storedScope: String { "" }
    var storedOrdinal: Int { 0 }
    var isPinned: Bool { false }
    var isLocal: Bool { false }
}

extension Channel: CachedEntity {
    static var storedKind: StoredKind { .channels }
    static var pendingValues: WritableKeyPath<PendingWrites, [String: Channel]> { \.channels }
    var isPinned: Bool { currentUserMembership == .member }
}

extension Message: CachedEntity {
    static var storedKind: StoredKind { .messages }
    static var pendingValues: WritableKeyPath<PendingWrites, [String: Message]> { \.messages }
    var storedScope: String { channelId }
    var storedOrdinal: Int { sequence }
    var isPinned: Bool { syncState.isLocal }
    var isLocal: Bool { syncState.isLocal }
}

extension User: CachedEntity {
    static var storedKind: StoredKind { .users }
    static var pendingValues: WritableKeyPath<PendingWrites, [String: User]> { \.users }
}

extension ChannelMember: CachedEntity {
    var cacheKey: String { Self.cacheKey(channelId: channelId, userId: userId) }

    /// The cache key of a channel's member.
    static func cacheKey(channelId: String, userId: String) -> String { channelId + "\u{1F}" + userId }

    /// Keeps the cached profile when it is newer than the one this value embeds.
    func merging(cached: ChannelMember) -> ChannelMember {
        guard let known = cached.user, known.version > (user?.version ?? -1) else { return self }
        var merged = self
        merged.user = known
        return merged
    }

    static var storedKind: StoredKind { .members }
    static var pendingValues: WritableKeyPath<PendingWrites, [String: ChannelMember]> { \.members }
    var storedScope: String { channelId }
}
