import SQLiteSupport

/// Eviction: keeping the file within its ``PersistenceLimits`` after each batch, at most
/// `messagesPerChannel` messages a channel and, past `totalBytes`, the oldest-stored unpinned rows
/// deleted.
extension CacheStore {
    /// Keeps at most `messagesPerChannel` messages in each channel written to (besides the
    /// outbox's, which are pinned: a message kept on the device is never evicted), then, while the
    /// stored values exceed `totalBytes`, deletes the oldest-stored unpinned rows (see
    /// ``PersistenceLimits``) until they take 90% of it.
    func evict(channels: Set<String>, in connection: SQLiteConnection) throws {
        let cap = try connection.statement(
            """
            DELETE FROM messages WHERE scope = ?1 AND pinned = 0 AND ordinal < (
                SELECT ordinal FROM messages WHERE scope = ?1 AND pinned = 0 ORDER BY ordinal DESC LIMIT 1 OFFSET ?2)
            """)
        for channelId in channels { try cap.run([channelId, limits.messagesPerChannel - 1]) }
        let bytes = { try connection.integer("SELECT value FROM meta WHERE key = 'bytes'") }
        guard try bytes() > limits.totalBytes else { return }
        let target = limits.totalBytes / 10 * 9
        for kind in StoredKind.evictionOrder {
            let statement = try connection.statement(
                "DELETE FROM \(kind.table) WHERE rowid IN (SELECT rowid FROM \(kind.table) WHERE pinned = 0 ORDER BY rowid LIMIT 256)"
            )
            while try bytes() > target {
                try statement.run()
                if connection.changes == 0 { break }
            }
            if try bytes() <= target { return }
        }
    }
}
