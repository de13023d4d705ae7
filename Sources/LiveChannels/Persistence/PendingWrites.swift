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
    /// The first page of each live list, by list storage key: the kind and the cache keys.
    var lists: [String: (kind: StoredKind, keys: [String])] = [:]
    var sequence: SequenceWrite?

    var isEmpty: Bool {
        channels.isEmpty && members.isEmpty && messages.isEmpty && users.isEmpty && lists.isEmpty
            && sequence == nil
    }

    /// Adds a later batch: its values (coalesced by version), lists and sequence.
    mutating func merge(_ later: PendingWrites) {
        add(later.channels.values)
        add(later.members.values)
        add(later.messages.values)
        add(later.users.values)
        lists.merge(later.lists) { _, new in new }
        if let sequence = later.sequence { self.sequence = sequence }
    }

    /// Adds values; of two values of one key the higher version stays.
    /// - Complexity: O(k) for k values.
    mutating func add<Entity: CachedEntity>(_ values: some Sequence<Entity>) {
        let path = Entity.pendingValues
        for value in values {
            let key = value.cacheKey
            if let old = self[keyPath: path][key], old.version > value.version { continue }
            self[keyPath: path][key] = value
        }
    }
}
