import Dispatch
import Foundation
import RowCoding
import SQLiteSupport

/// The writer, on the store's serial queue: takes the pending batch once no unit of work is under
/// way and writes it in one transaction (values upserted by version, the remembered lists, the
/// event sequence, then eviction), puts a failed batch back to be written again, and counts its
/// work (``statistics``).
extension CacheStore {
    /// Time spent writing and events written, for the benchmarks.
    var statistics: PersistenceStatistics { stats.withLock { $0 } }

    func onQueue<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    func onQueueThrowing(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// Takes the batch — once no unit is under way: units do not suspend, so the wait is a
    /// unit's few microseconds — and writes it in one transaction.
    /// - Parameter unitWait: how long to wait for a unit under way; past it nothing is written
    ///   (`nil`: as long as it takes).
    func writePending(unitWait: Duration? = nil) {
        var spare = file.withLock { state in
            defer { state.spare = PendingWrites() }
            return state.spare
        }
        var writes = PendingWrites()
        let clock = ContinuousClock()
        let deadline = unitWait.map { clock.now + $0 }
        while true {
            let taken = pending.withLock { pending -> Bool in
                guard pending.depth == 0 else { return false }
                pending.isScheduled = false
                swap(&pending.writes, &spare)
                return true
            }
            if taken { break }
            if let deadline, clock.now >= deadline {
                file.withLock { $0.spare = spare }
                return
            }
            usleep(20)
        }
        swap(&writes, &spare)
        defer {
            writes.removeAll()
            file.withLock { $0.spare = writes }
        }
        guard !writes.isEmpty else { return }
        let start = clock.now
        let failed = file.withLock { state -> Bool in
            guard let connection = state.connection else { return false }
            do {
                try connection.transaction { try write(writes, to: connection) }
                state.lastError = nil
                return false
            } catch {
                return handle(error, in: &state)
            }
        }
        if failed {
            // Nothing of the batch was written (one transaction): it goes back under what was
            // recorded since, and is written with the next batch — the file keeps a prefix of
            // what the client had, and loses nothing once the disk has room again.
            let schedule = pending.withLock { pending -> Bool in
                var merged = writes
                merged.add(pending.writes)
                pending.writes = merged
                return pending.scheduleIfNeeded()
            }
            if schedule { queue.asyncAfter(deadline: .now() + Self.retryAfterFailure) { self.writePending() } }
            writes = PendingWrites()
            return
        }
        let elapsed = clock.now - start
        stats.withLock { stats in
            stats.writeTime += elapsed
            stats.batches += 1
            stats.values += writes.channels.count + writes.members.count + writes.messages.count + writes.users.count
        }
    }

    private func write(_ writes: PendingWrites, to connection: SQLiteConnection) throws {
        var row = RowWriter()
        if writes.startsOver { try connection.execute(CacheSchema.deleteEverything) }
        _ = sizeChange.take()  // what a failed write counted
        try upsert(writes.channels, row: &row, in: connection)
        try upsert(writes.members, row: &row, in: connection)
        try upsert(writes.messages, row: &row, in: connection)
        try upsert(writes.users, row: &row, in: connection)
        if !writes.discardedMessages.isEmpty {
            let delete = try connection.statement(CacheSchema.deleteDiscardedMessage)
            for key in writes.discardedMessages { try delete.run([key]) }
        }
        let resized = sizeChange.take()
        if resized != 0 {
            try connection.statement("UPDATE meta SET value = value + ?1 WHERE key = 'bytes'").run([resized])
        }
        if !writes.lists.isEmpty {
            let touched = try connection.integer("SELECT coalesce(max(touched), 0) + 1 FROM lists")
            let statement = try connection.statement(
                "INSERT OR REPLACE INTO lists(key, kind, touched, keys) VALUES(?1, ?2, ?3, ?4)")
            for (key, list) in writes.lists {
                row.removeAll()
                row.write(list.keys)
                try statement.run([key, list.kind.rawValue, touched, row.bytes])
            }
            try connection.statement(
                "DELETE FROM lists WHERE key NOT IN (SELECT key FROM lists ORDER BY touched DESC LIMIT \(Self.listCapacity))"
            ).run()
        }
        switch writes.sequence {
        case .set(let sequence):
            try connection.statement("INSERT OR REPLACE INTO meta(key, value) VALUES('sequence', ?1)").run([sequence])
        case .clear:
            try connection.statement("DELETE FROM meta WHERE key = 'sequence'").run()
        case nil:
            break
        }
        if let epoch = writes.epoch {
            try connection.statement("INSERT OR REPLACE INTO meta(key, value) VALUES('epoch', ?1)").run([epoch])
        }
        try evict(channels: Set(writes.messages.values.map(\.channelId)), in: connection)
    }

    /// Writes each value's row (``RowCodable``), encoded into `row`, a buffer reused from row to
    /// row; keeps a stored value with a higher version. An update when the key is stored (the
    /// common case: no trigger runs), an insert otherwise. O(k) statements for k values.
    private func upsert<Entity: CachedEntity>(
        _ values: [String: Entity], row: inout RowWriter, in connection: SQLiteConnection
    ) throws {
        guard !values.isEmpty else { return }
        let update = try connection.statement(CacheSchema.update(Entity.storedKind))
        let insert = try connection.statement(CacheSchema.insert(Entity.storedKind))
        func run(_ statement: SQLiteStatement, _ value: Entity) throws {
            try statement.bind(value.version, at: 2)
            try statement.bind(value.storedScope, at: 3)
            try statement.bind(value.storedOrdinal, at: 4)
            try statement.bind(value.isPinned ? 1 : 0, at: 5)
            try statement.bind(row.bytes.count, at: 6)
            // The key and the row are bound without a copy: SQLite reads them while it runs.
            try statement.withBorrowed(value.cacheKey, at: 1) {
                try row.bytes.withUnsafeBytes { bytes in
                    try statement.withBorrowed(bytes, at: 7) { try statement.runBound() }
                }
            }
        }
        func upsert(_ value: Entity) throws {
            row.removeAll()
            try value.encodeRow(to: &row)
            try run(update, value)
            // Not stored yet (inserted), or stored with a higher version (ignored).
            if connection.changes == 0 { try run(insert, value) }
        }
        // In ordinal order, so that storage order (what eviction goes by) is oldest first; kinds
        // without ordinals need no sort.
        if values.values.contains(where: { $0.storedOrdinal != 0 }) {
            for value in values.values.sorted(by: { $0.storedOrdinal < $1.storedOrdinal }) { try upsert(value) }
        } else {
            for value in values.values { try upsert(value) }
        }
    }
}
