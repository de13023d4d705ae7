import ChatAPI
import LiveCore

/// Filling the caches from the cache file at start, before anything from the server is applied.
extension SyncEngine {
    /// Loads everything else the file holds into the caches, a chunk at a time, then opens
    /// ``restoration``. Values already cached are kept (same or newer versions).
    func restore() async {
        defer { restoration.open() }
        guard let store, store.failure == nil else { return }
        await restore(channels, from: store)
        await restore(users, from: store)
        await restore(members, from: store)
        await restore(messages, from: store)
        if !store.isIntact {
            // The file was damaged and rebuilt: what it held cannot be trusted to resume from.
            isRestored = false
        }
    }

    func restore<Entity: CachedEntity>(_ cache: EntityCache<Entity>, from store: CacheStore) async {
        var rowid = 0
        while let chunk = await store.values(Entity.self, after: rowid) {
            cache.upsert(chunk.values, persisting: false, dataStatus: .local)
            rowid = chunk.last
        }
    }
}
