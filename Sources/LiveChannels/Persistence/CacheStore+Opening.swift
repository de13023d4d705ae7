import CSQLite
import ChatAPI
import Foundation
import SQLiteSupport

/// Opening the cache file: telling a file of ours from one that is not (which is left untouched),
/// taking it for this client (`locking_mode = EXCLUSIVE` plus a write), WAL and
/// `synchronous = NORMAL`, bringing its schema up to date (``CacheSchema``), and rebuilding a
/// damaged file empty. ``init(url:limits:)`` opens; ``handle(_:in:)`` rebuilds after a failure.
extension CacheStore {
    /// Opens the file, takes it for this client and brings its schema up to date; updates
    /// count their size changes in `sizeChange`.
    /// - Throws: `ChatError.invalidArgument` for a file that is not ours or is in use,
    ///   ``StoreDamage`` or a corrupt ``SQLiteError`` for a file of ours to rebuild.
    static func open(_ path: String, sizeChange: StoredSizeChange) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try sizeChange.define(on: connection)
        do {
            // What the file is, read before anything changes it: switching to WAL rewrites the
            // header, which a file that is not ours must never see.
            let application = try connection.integer("PRAGMA application_id")
            let version = try connection.integer("PRAGMA user_version")
            let objects = try connection.integer("SELECT count(*) FROM sqlite_master")
            let isEmpty = application == 0 && version == 0 && objects == 0
            if !isEmpty && application != CacheSchema.applicationId {
                throw ChatError.invalidArgument(
                    field: "persistence",
                    reason:
                        "'\(path)' is not a LiveChannels cache (an SQLite database of something else); it was left untouched"
                )
            }
            if connection.isReadOnly {
                throw SQLiteError(code: SQLITE_READONLY, message: "the file opened read-only")
            }
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = NORMAL")
            if isEmpty {
                try CacheSchema.migrate(connection, from: 0)
            } else if version > CacheSchema.version {
                throw StoreDamage.newerSchema(version)
            } else if version < CacheSchema.version {
                try CacheSchema.migrate(connection, from: version)
            }
            // A write transaction takes the exclusive lock, which this locking mode keeps until
            // the connection closes: no other client can open the file meanwhile.
            try connection.execute("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE key = 'bytes'; COMMIT")
        } catch let error as SQLiteError where error.isBusy {
            throw error.chatError(path: path)
        }
        return connection
    }

    /// Deletes the file (and its journal) and creates an empty cache in its place.
    static func rebuild(_ path: String, sizeChange: StoredSizeChange) throws -> SQLiteConnection {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        return try open(path, sizeChange: sizeChange)
    }
}
