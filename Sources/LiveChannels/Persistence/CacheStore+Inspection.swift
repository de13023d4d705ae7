import SQLiteSupport

/// Looking into the file, for tests: its size in pages, a cap on its size (a full disk), SQLite's
/// integrity check, the stored bytes as the file counts them, and the stored values of a kind.
extension CacheStore {
    /// The file's size in pages. For tests.
    func pageCount() async -> Int {
        await onQueue { self.file.withLock { (try? $0.connection?.integer("PRAGMA page_count")) ?? 0 } }
    }

    /// Caps the file at `pages` pages, as a full disk would (SQLite's `max_page_count`). For tests.
    func limitFileSize(toPages pages: Int) async {
        await onQueue { self.file.withLock { _ = try? $0.connection?.integer("PRAGMA max_page_count = \(pages)") } }
    }

    /// SQLite's `PRAGMA integrity_check` answer ("ok" for a sound file). For tests.
    func integrityCheck() async -> String {
        await onQueue {
            self.file.withLock { state in
                guard let connection = state.connection else { return "closed" }
                var lines: [String] = []
                do {
                    try connection.statement("PRAGMA integrity_check").query { lines.append($0.string(at: 0)) }
                } catch {
                    return "\(error)"
                }
                return lines.joined(separator: "\n")
            }
        }
    }

    /// The bytes of stored values, as the file counts them. For tests.
    func storedBytes() async -> Int {
        await onQueue {
            self.file.withLock { state in
                (try? state.connection?.integer("SELECT value FROM meta WHERE key = 'bytes'")) ?? 0
            }
        }
    }

    /// The stored values of a kind, in storage order. For tests.
    func storedValues<Entity: CachedEntity>(_ type: Entity.Type) async -> [Entity] {
        await onQueue {
            self.file.withLock { state in
                guard let connection = state.connection else { return [] }
                var values: [Entity] = []
                try? connection.statement("SELECT value FROM \(Entity.storedKind.table) ORDER BY rowid").query { row in
                    if let value = try? row.withBlob(at: 0, { try Entity.decodeRow($0) }) { values.append(value) }
                }
                return values
            }
        }
    }
}
