/// The layout of the cache file and how older layouts are brought up to date.
///
/// The file is ours when `PRAGMA application_id` is ``applicationId``; `PRAGMA user_version` is
/// its schema version. Each entity table has the same columns: the cache key, the value's
/// version, its scope (channel id) and ordinal (message sequence) for eviction, whether it is
/// pinned (never evicted), its encoded size and the encoded value (JSON). Triggers keep the
/// total size in `meta`, in the same transaction as every change.
enum CacheSchema {
    /// 'LCCH'.
    static let applicationId = 0x4C43_4348
    /// The schema version this build writes.
    static let version = 1

    /// The statements that bring a file from `version - 1` to `version`, by target version.
    /// A new schema version adds an entry here (an `ALTER TABLE`, a new table, ...); files of
    /// any older version are migrated step by step, in one transaction.
    static let migrations: [Int: String] = [1: createVersion1]

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

    /// Creates the schema in an empty file, or migrates an older one, in one transaction.
    static func migrate(_ connection: SQLiteConnection, from current: Int) throws {
        try connection.transaction {
            if current == 0 { try connection.execute("PRAGMA application_id = \(applicationId)") }
            for target in (current + 1)...max(current + 1, version) where target <= version {
                guard let sql = migrations[target] else { continue }
                try connection.execute(sql)
            }
            try connection.execute("PRAGMA user_version = \(version)")
        }
    }

    /// Upserts one row of `kind`, keeping a stored value with a higher version.
    static func upsert(_ kind: StoredKind) -> String {
        let table = kind.table
        return """
            INSERT INTO \(table)(key, version, scope, ordinal, pinned, size, value) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT(key) DO UPDATE SET version = excluded.version, scope = excluded.scope,
                ordinal = excluded.ordinal, pinned = excluded.pinned, size = excluded.size, value = excluded.value
            WHERE excluded.version >= \(table).version
            """
    }
}
