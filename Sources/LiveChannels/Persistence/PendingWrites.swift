import ChatAPI

/// Writes waiting for the cache file's writer: one batch, coalesced per key (a value replaced
/// before it was written is never written). A plain value; ``CacheStore`` keeps it under a lock.
struct PendingWrites: Sendable {
    /// What to do with the stored event sequence.
    enum SequenceWrite: Sendable, Equatable {
        /// Store it: the file holds every change up to it.
        case set(Int)
        /// Remove it: the file cannot resume (the next start connects afresh).
        case clear
    }

    var channels: [String: Channel] = [:]
    var members: [String: ChannelMember] = [:]
    var messages: [String: Message] = [:]
    var users: [String: User] = [:]
    /// Local messages discarded (their rows go, unless the server stored them meanwhile).
    var discardedMessages: Set<String> = []
    /// The first page of each live list, by list storage key: the kind and the cache keys.
    var lists: [String: (kind: StoredKind, keys: [String])] = [:]
    var sequence: SequenceWrite?
    /// Delete everything the file holds before writing this batch (the server's history
    /// started over: no stored value may be kept for its higher version).
    var startsOver = false
    /// The server history to record as the one the file holds (``CacheStore/epochNumber(_:)``).
    var epoch: Int?

    var isEmpty: Bool {
        channels.isEmpty && members.isEmpty && messages.isEmpty && users.isEmpty && lists.isEmpty
            && discardedMessages.isEmpty
            && sequence == nil && !startsOver && epoch == nil
    }

    /// Adds values; of two values of one key the higher version stays (of two of one version,
    /// the later).
    /// - Complexity: O(k) for k values: one hash lookup each.
    mutating func add<Entity: CachedEntity>(_ values: some Sequence<Entity>) {
        Self.add(values, to: &self[keyPath: Entity.pendingValues])
    }

    /// Adds everything `later` holds, as if recorded after this batch: its values where newer,
    /// its lists, and its sequence write if it has one.
    mutating func add(_ later: PendingWrites) {
        if later.startsOver {
            // Everything before a start-over is deleted with it: only what follows counts.
            self = later
            return
        }
        if let epoch = later.epoch { self.epoch = epoch }
        Self.add(later.channels.values, to: &channels)
        Self.add(later.members.values, to: &members)
        Self.add(later.messages.values, to: &messages)
        Self.add(later.users.values, to: &users)
        discardedMessages.formUnion(later.discardedMessages)
        lists.merge(later.lists) { _, newer in newer }
        if let write = later.sequence { sequence = write }
    }

    private static func add<Entity: CachedEntity>(_ values: some Sequence<Entity>, to stored: inout [String: Entity]) {
        for value in values {
            keepNewer(value, in: &stored[value.cacheKey, default: value])
        }
    }

    private static func keepNewer<Entity: Versioned>(_ value: Entity, in stored: inout Entity) {
        if stored.version <= value.version { stored = value }
    }

    /// Empties the batch, keeping each dictionary's room for the next one unless it held more
    /// than ``roomKept`` values (a first load, say: its room is given back). O(capacity).
    mutating func removeAll() {
        channels.removeAll(keepingCapacity: channels.count <= Self.roomKept)
        members.removeAll(keepingCapacity: members.count <= Self.roomKept)
        messages.removeAll(keepingCapacity: messages.count <= Self.roomKept)
        users.removeAll(keepingCapacity: users.count <= Self.roomKept)
        discardedMessages.removeAll()
        lists.removeAll(keepingCapacity: true)
        sequence = nil
        startsOver = false
        epoch = nil
    }

    /// The most values of a kind whose room ``removeAll()`` keeps.
    static let roomKept = 4_096
}
