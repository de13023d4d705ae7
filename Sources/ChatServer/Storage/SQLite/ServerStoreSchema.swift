import SQLiteSupport

/// The layout of a server store file (``SQLiteServerDatabase``).
///
/// The file is ours when `PRAGMA application_id` is ``applicationId``; `PRAGMA user_version` is
/// its schema version. Values are in the row encoding (`RowCodable`): users, channels (their
/// own fields; their moderation state in `extras`), members (one row per channel and user) and
/// messages (one row per channel and sequence, every message ever sent). `meta` holds the
/// counters that continue across restarts.
///
/// Versions: 1, the first.
enum ServerStoreSchema {
    /// 'LCSV'.
    static let applicationId = 0x4C43_5356
    /// The schema version this build writes.
    static let version = 1

    /// The statements that bring a file from `version - 1` to `version`, by target version. A
    /// new schema version adds an entry; older files are migrated step by step in one
    /// transaction when they are opened.
    static let migrations: [Int: String] = [1: createVersion1]

    private static let createVersion1 = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE users(id TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE channels(id TEXT PRIMARY KEY, info BLOB NOT NULL, extras BLOB);
        CREATE TABLE members(
            channel TEXT NOT NULL, user TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY(channel, user)) WITHOUT ROWID;
        CREATE TABLE messages(
            channel TEXT NOT NULL, sequence INTEGER NOT NULL, value BLOB NOT NULL,
            PRIMARY KEY(channel, sequence)) WITHOUT ROWID;
        """

    /// Creates the schema in an empty file, or migrates an older one, in one transaction.
    static func migrate(_ connection: SQLiteConnection, from current: Int) throws {
        try connection.migrate(applicationId: applicationId, to: version, from: current, migrations: migrations)
    }

    static let upsertUser =
        "INSERT INTO users(id, value) VALUES(?1, ?2) ON CONFLICT(id) DO UPDATE SET value = excluded.value"
    /// `?3` NULL keeps the stored extras.
    static let upsertChannel = """
        INSERT INTO channels(id, info, extras) VALUES(?1, ?2, ?3)
        ON CONFLICT(id) DO UPDATE SET info = excluded.info, extras = coalesce(excluded.extras, channels.extras)
        """
    static let upsertMember = """
        INSERT INTO members(channel, user, value) VALUES(?1, ?2, ?3)
        ON CONFLICT(channel, user) DO UPDATE SET value = excluded.value
        """
    static let deleteMember = "DELETE FROM members WHERE channel = ?1 AND user = ?2"
    static let upsertMessage = """
        INSERT INTO messages(channel, sequence, value) VALUES(?1, ?2, ?3)
        ON CONFLICT(channel, sequence) DO UPDATE SET value = excluded.value
        """
    static let upsertMeta =
        "INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    static let messagesInRange =
        "SELECT value FROM messages WHERE channel = ?1 AND sequence BETWEEN ?2 AND ?3 ORDER BY sequence"
}
