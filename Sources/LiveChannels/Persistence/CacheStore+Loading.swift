import SQLiteSupport

/// Loading everything the file holds, in chunks of ``chunkSize`` rows in storage order, and
/// decoding a stored row in place (``RowCodable``): a row that does not decode is damage
/// (``StoreDamage``), and the file is rebuilt.
extension CacheStore {
    /// The next `chunkSize` stored values of a kind after row `rowid` (in storage order) and the
    /// last row read, or `nil` at the end. A damaged file is rebuilt (and reads end).
    func values<Entity: CachedEntity>(_ type: Entity.Type, after rowid: Int) async -> (values: [Entity], last: Int)? {
        await onQueue {
            self.file.withLock { state -> ([Entity], Int)? in
                guard let connection = state.connection else { return nil }
                do {
                    let statement = try connection.statement(
                        "SELECT rowid, key, value FROM \(Entity.storedKind.table) WHERE rowid > ?1 ORDER BY rowid LIMIT ?2"
                    )
                    var values: [Entity] = []
                    var last = rowid
                    try statement.query([rowid, Self.chunkSize]) { row in
                        last = row.int(at: 0)
                        values.append(try Self.decode(Entity.self, column: 2, of: row, key: row.string(at: 1)))
                    }
                    return values.isEmpty ? nil : (values, last)
                } catch {
                    self.handle(error, in: &state)
                    return nil
                }
            }
        }
    }

    /// The value stored in `column` of the current row, decoded in place (no copy of the bytes).
    /// - Throws: ``StoreDamage/undecodable(kind:key:)`` naming `key` for a row that does not
    ///   decode (see ``RowCodable``).
    static func decode<Entity: CachedEntity>(
        _ type: Entity.Type, column: Int32, of row: SQLiteStatement, key: @autoclosure () -> String
    ) throws -> Entity {
        guard let value = try? row.withBlob(at: column, { try Entity.decodeRow($0) }) else {
            throw StoreDamage.undecodable(kind: Entity.storedKind.rawValue, key: key())
        }
        return value
    }
}
