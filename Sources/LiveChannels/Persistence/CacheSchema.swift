import RowCoding
import SQLiteSupport

/// The layout of the cache file and how older layouts are brought up to date.
///
/// The file is ours when `PRAGMA application_id` is ``applicationId``; `PRAGMA user_version` is
/// its schema version. Each entity table has the same columns: the cache key, the value's
/// version, its scope (channel id) and ordinal (message sequence) for eviction, whether it is
/// pinned (never evicted), its encoded size and the encoded value (the binary row encoding of
/// ``RowCodable``; a list's keys are a ``RowWriter`` array of strings). `meta` keeps the total
/// size, in the same transaction as every change: triggers count inserts and deletes, the
/// writer counts updates (``StoredSizeChange``).
///
/// Versions: 1 stored values as JSON; 2 stores them in the row encoding; 3 indexes the messages
/// kept on the device only (the outbox: pinned rows of `messages`), which a start reads whole.
enum CacheSchema {
    /// 'LCCH'.
    static let applicationId = 0x4C43_4348
    /// The schema version this build writes.
    static let version = 3

    /// The statements that bring a file from `version - 1` to `version`, by target version.
    /// A new schema version adds an entry here (an `ALTER TABLE`, a new table, ...); files of
    /// any older version are migrated step by step, in one transaction.
    static let migrations: [Int: String] = [1: createVersion1, 2: createVersion2, 3: createVersion3]

    /// Deletes every stored value but the outbox's messages (pinned rows of `messages`: what the
    /// user wrote and the server has not stored yet is not a cache), every list and the event
    /// sequence; the size drops to the outbox's. What `ChatClient.clearPersistence()` runs, and
    /// a start-over (another server history).
    static var deleteEverything: String {
        StoredKind.allCases.map {
            $0 == .messages ? "DELETE FROM messages WHERE pinned = 0;\n" : "DELETE FROM \($0.table);\n"
        }
        .joined()
            + "DELETE FROM lists; DELETE FROM meta WHERE key = 'sequence';\n"
            + "UPDATE meta SET value = (SELECT coalesce(sum(size), 0) FROM messages) WHERE key = 'bytes';\n"
    }

    private static var createVersion1: String {
        var sql = """
            CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
            INSERT INTO meta(key, value) VALUES('bytes', 0);
            CREATE TABLE lists(key TEXT PRIMARY KEY, kind TEXT NOT NULL, touched INTEGER NOT NULL, keys BLOB NOT NULL);

            """
        for kind in StoredKind.allCases {
            let table = kind.table
            sql += """
                CREATE TABLE \(table)(
                    key TEXT PRIMARY KEY, version INTEGER NOT NULL, scope TEXT NOT NULL,
                    ordinal INTEGER NOT NULL, pinned INTEGER NOT NULL, size INTEGER NOT NULL,
                    value BLOB NOT NULL);
                CREATE TRIGGER \(table)_inserted AFTER INSERT ON \(table) BEGIN
                    UPDATE meta SET value = value + NEW.size WHERE key = 'bytes'; END;
                CREATE TRIGGER \(table)_updated AFTER UPDATE OF size ON \(table) BEGIN
                    UPDATE meta SET value = value - OLD.size + NEW.size WHERE key = 'bytes'; END;
                CREATE TRIGGER \(table)_deleted AFTER DELETE ON \(table) BEGIN
                    UPDATE meta SET value = value - OLD.size WHERE key = 'bytes'; END;

                """
        }
        sql += "CREATE INDEX messages_by_channel ON messages(scope, ordinal);\n"
        return sql
    }

    /// From version 1: values are stored in the row encoding instead of JSON. Rows of version 1
    /// cannot be read by this build, so they are deleted, with the lists and the event sequence
    /// (``deleteEverything``): the file keeps its tables, and the client connects afresh and
    /// stores again. The update triggers go: an update counts its size change itself
    /// (``update(_:)``), which spares every update a trigger program and a statement journal.
    private static var createVersion2: String {
        deleteEverything + StoredKind.allCases.map { "DROP TRIGGER \($0.table)_updated;\n" }.joined()
    }

    /// From version 2: an index of the outbox's messages (the only pinned rows of `messages`), so
    /// a start reads them without a scan (``outboxMessages``).
    private static let createVersion3 = "CREATE INDEX messages_kept_on_device ON messages(pinned) WHERE pinned = 1;\n"

    /// The messages kept on the device only: the outbox (``createVersion3``).
    static let outboxMessages = "SELECT value, key FROM messages WHERE pinned = 1"

    /// Deletes the row of a discarded local message `?1` (a row the server stored meanwhile is
    /// not pinned, and stays).
    static let deleteDiscardedMessage = "DELETE FROM messages WHERE key = ?1 AND pinned = 1"

    /// Creates the schema in an empty file, or migrates an older one, in one transaction.
    static func migrate(_ connection: SQLiteConnection, from current: Int) throws {
        try connection.migrate(applicationId: applicationId, to: version, from: current, migrations: migrations)
    }

    /// Replaces the stored row of `kind` with key `?1` by the row `?1`…`?7` (key, version, scope,
    /// ordinal, pinned, size, value) unless the stored one has a higher version; changes nothing
    /// when there is no stored row. Adds the size change to ``StoredSizeChange`` (its SQL
    /// function must be defined on the connection). Then ``insert(_:)`` when no row changed.
    static func update(_ kind: StoredKind) -> String {
        """
        UPDATE \(kind.table) SET version = ?2, scope = ?3, ordinal = ?4, pinned = ?5,
            size = \(StoredSizeChange.function)(size, ?6), value = ?7
        WHERE key = ?1 AND version <= ?2
        """
    }

    /// Inserts the row `?1`…`?7` of `kind` (as in ``update(_:)``) unless a row with its key is
    /// stored (one with a higher version, after an ``update(_:)`` that changed nothing).
    static func insert(_ kind: StoredKind) -> String {
        "INSERT OR IGNORE INTO \(kind.table)(key, version, scope, ordinal, pinned, size, value) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    }
}
