import CSQLite
import ChatAPI
import Dispatch
import Foundation
import Locking
import RowCoding
import SQLiteSupport

/// The server's state in one SQLite file (``ServerStorage/sqlite(_:)``): a ``ServerDatabase``
/// like PostgreSQL's, so the same ``DatabaseServerStore`` — one group-commit writer, one reader
/// of old history — serves both. The file's layout is ``ServerStoreSchema``.
///
/// One connection, kept by this database alone (``ServerFileLock``: a second server on the same
/// file is refused, while a backup — `sqlite3 FILE "VACUUM INTO 'COPY'"` — reads it as the
/// server writes; SQLite's locking mode stays the normal one). WAL journal; `synchronous = NORMAL` (a killed process loses no
/// commit) or `FULL` (nor does a power loss) by ``StorageDurability``. Every statement runs on
/// the database's own serial queue, never on a thread of Swift's cooperative pool, and never
/// under the engine's lock.
///
/// Opening is synchronous (``ChatServer/init(clock:configuration:storage:)`` is): the file is
/// opened, checked and migrated by ``init(url:durability:startsNewEpoch:)``, and the state read
/// in place by ``loadState(messagesPerChannel:)`` and ``loadNewestMessages(of:messagesPerChannel:)``
/// (`SQLiteServerDatabase+Loading.swift`).
///
/// - Threading: thread-safe. Lock order: ``connection`` is `LockRank.storeConnection`, taken
///   after the store's writer lock, never before it.
final class SQLiteServerDatabase: LocalServerDatabase {
    let path: String
    /// The history's identity (``ChatAPI/ConnectResult/epoch``), drawn when the file was created.
    private(set) var epoch: String {
        get { epochValue.withLock { $0 } }
        set { epochValue.withLock { $0 = newValue } }
    }
    private let epochValue: Lock<String>
    /// Lock order: `LockRank.storeConnection`, innermost but for leaves.
    let connection: Lock<SQLiteConnection?>
    private let queue = DispatchQueue(label: "LiveChannels.SQLiteServerDatabase")
    /// This server's hold on the file, released by ``close()``.
    private let fileLock: Lock<ServerFileLock?>

    /// Opens (creating if needed) the file at `url`, migrating an older schema; with
    /// `startsNewEpoch`, the history is declared another one.
    ///
    /// - Throws: `ChatError.invalidArgument(field: "storage")` for a file that is not a server
    ///   store of ours (left untouched), a store written by a newer version, or a file another
    ///   server holds; `ChatError.unavailable` when the file cannot be opened or created.
    init(url: URL, durability: StorageDurability, startsNewEpoch: Bool = false) throws(ChatError) {
        path = url.path
        let (opened, epoch, held) = try Self.open(
            path: url.path, durability: durability, startsNewEpoch: startsNewEpoch)
        epochValue = Lock(ServerEpoch.text(epoch), rank: .leaf)
        connection = Lock(opened, rank: .storeConnection)
        fileLock = Lock(held, rank: .leaf)
    }

    /// Opens the file and returns it with its epoch number (drawn and stored now if the file
    /// has none: a new store, or one written before epochs).
    private static func open(path: String, durability: StorageDurability, startsNewEpoch: Bool) throws(ChatError) -> (
        SQLiteConnection, Int, ServerFileLock
    ) {
        // A file that is not an SQLite database is refused before SQLite touches it.
        if let handle = FileHandle(forReadingAtPath: path) {
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if !header.isEmpty, header != Data("SQLite format 3\0".utf8) {
                throw notOurs(path, "not an SQLite database")
            }
        }
        do {
            let connection = try SQLiteConnection(path: path)
            if connection.isReadOnly {
                throw ChatError.unavailable("the server's storage '\(path)' cannot be opened: the file is readonly")
            }
            // Read what the file is before changing anything (WAL mode rewrites the header).
            let application = try connection.integer("PRAGMA application_id")
            let version = try connection.integer("PRAGMA user_version")
            let objects = try connection.integer("SELECT count(*) FROM sqlite_master")
            let isEmpty = application == 0 && version == 0 && objects == 0
            if !isEmpty && application != ServerStoreSchema.applicationId {
                throw notOurs(path, "an SQLite database of something else")
            }
            if version > ServerStoreSchema.version {
                throw ChatError.invalidArgument(
                    field: "storage",
                    reason:
                        "'\(path)' was written by a newer version (schema \(version), this build reads up to \(ServerStoreSchema.version)); it was left untouched"
                )
            }
            guard let held = try ServerFileLock(path: path) else {
                throw ChatError.invalidArgument(field: "storage", reason: "'\(path)' is in use by another server")
            }
            // A reader opening the file (a backup) may hold SQLite's locks for a moment.
            try connection.execute("PRAGMA busy_timeout = 5000")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = \(durability == .powerLoss ? "FULL" : "NORMAL")")
            if version < ServerStoreSchema.version { try ServerStoreSchema.migrate(connection, from: version) }
            // Writable now (a read-only directory or a full disk is told at start).
            try connection.execute("BEGIN IMMEDIATE; COMMIT")
            var epoch = try connection.integer("SELECT value FROM meta WHERE key = 'epoch'")
            if epoch <= 0 || startsNewEpoch {
                epoch = ServerEpoch.random()
                try storeEpoch(epoch, in: connection)
            }
            return (connection, epoch, held)
        } catch let error as ChatError {
            throw error
        } catch let error as SQLiteError where error.isBusy {
            throw .invalidArgument(field: "storage", reason: "'\(path)' is in use by another server")
        } catch let error as SQLiteError where error.code == SQLITE_NOTADB {
            throw notOurs(path, "not an SQLite database")
        } catch {
            throw .unavailable("the server's storage '\(path)' cannot be opened: \(error)")
        }
    }

    private static func storeEpoch(_ epoch: Int, in connection: SQLiteConnection) throws {
        try connection.statement("INSERT OR REPLACE INTO meta(key, value) VALUES ('epoch', ?)").run([epoch])
    }

    private static func notOurs(_ path: String, _ what: String) -> ChatError {
        .invalidArgument(
            field: "storage", reason: "'\(path)' is not a LiveChannels server store (\(what)); it was left untouched")
    }

    func failure(_ error: any Error, while doing: String) -> ChatError {
        if let error = error as? ChatError { return error }
        let reason = (error as? SQLiteError)?.message ?? "\(error)"
        return .unavailable("the server's storage '\(path)' failed \(doing): \(reason)")
    }

    /// Runs `body` with the connection.
    ///
    /// - Throws: `unavailable` naming the file when it is closed or `body` fails (`doing` says
    ///   at what).
    func withConnection<Result: Sendable>(while doing: String, _ body: (SQLiteConnection) throws -> Result)
        throws(ChatError)
        -> Result
    {
        do {
            return try connection.withLock { connection throws -> Result in
                guard let connection else { throw ChatError.unavailable("the server's storage '\(path)' is closed") }
                return try body(connection)
            }
        } catch {
            throw failure(error, while: doing)
        }
    }

    /// Runs `body` on the database's queue, off the caller's thread.
    private func onQueue<Value: Sendable>(_ body: @escaping @Sendable () throws(ChatError) -> Value)
        async throws(ChatError) -> Value
    {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Value, ChatError>, Never>) in
            queue.async { continuation.resume(returning: Result { () throws(ChatError) in try body() }) }
        }
        return try result.get()
    }

    // MARK: ServerDatabase

    func open() async throws -> ServerDatabaseContents {
        try await onQueue { () throws(ChatError) in try self.contents() }
    }

    /// Every row but the messages (``ServerDatabase/open()``), read now.
    func contents() throws(ChatError) -> ServerDatabaseContents {
        try withConnection(while: "reading") { connection in
            var contents = ServerDatabaseContents(epoch: epoch)
            try connection.statement("SELECT key, value FROM meta WHERE key != 'epoch'").query { row in
                contents.counters[row.string(at: 0)] = row.int(at: 1)
            }
            try connection.statement("SELECT id, value FROM users").query { row in
                contents.users.append(ServerRow.User(userId: row.string(at: 0), value: Self.bytes(row, 1)))
            }
            try connection.statement("SELECT id, info, extras FROM channels").query { row in
                contents.channels.append(
                    ServerRow.Channel(
                        channelId: row.string(at: 0), info: Self.bytes(row, 1),
                        extras: row.isNull(at: 2) ? nil : Self.bytes(row, 2)))
            }
            try connection.statement("SELECT channel, user, value FROM members").query { row in
                contents.members.append(
                    ServerRow.Member(
                        key: ServerRow.MemberKey(channelId: row.string(at: 0), userId: row.string(at: 1)),
                        value: Self.bytes(row, 2)))
            }
            return contents
        }
    }

    func messages(in ranges: [ServerRow.MessageRange]) async throws -> [ServerRow.Message] {
        try await onQueue { () throws(ChatError) in
            try self.withConnection(while: "reading messages") { connection in
                let statement = try connection.statement(
                    "SELECT sequence, value FROM messages WHERE channel = ?1 AND sequence BETWEEN ?2 AND ?3 ORDER BY sequence"
                )
                var rows: [ServerRow.Message] = []
                for range in ranges {
                    try statement.query([range.channelId, range.sequences.lowerBound, range.sequences.upperBound]) {
                        row in
                        rows.append(
                            ServerRow.Message(
                                channelId: range.channelId, sequence: row.int(at: 0), value: Self.bytes(row, 1)))
                    }
                }
                return rows
            }
        }
    }

    func write(_ batch: ServerDatabaseBatch) async throws {
        try await onQueue { () throws(ChatError) in try self.writeNow(batch) }
    }

    func onWriterThread(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Writes `batch` in one transaction, now.
    func writeNow(_ batch: ServerDatabaseBatch) throws(ChatError) {
        try withConnection(while: "writing") { connection in
            try connection.transaction {
                let users = try connection.statement(ServerStoreSchema.upsertUser)
                for row in batch.users { try users.run([row.userId, row.value]) }
                let channels = try connection.statement(ServerStoreSchema.upsertChannel)
                for row in batch.channels {
                    try channels.bind(row.channelId, at: 1)
                    try channels.bind(row.info, at: 2)
                    if let extras = row.extras {
                        try channels.bind(extras, at: 3)
                    } else {
                        try channels.bindNull(at: 3)
                    }
                    try channels.runBound()
                }
                let members = try connection.statement(ServerStoreSchema.upsertMember)
                for row in batch.members { try members.run([row.key.channelId, row.key.userId, row.value]) }
                let removed = try connection.statement(ServerStoreSchema.deleteMember)
                for key in batch.removedMembers { try removed.run([key.channelId, key.userId]) }
                let messages = try connection.statement(ServerStoreSchema.upsertMessage)
                for row in batch.messages { try messages.run([row.channelId, row.sequence, row.value]) }
                let meta = try connection.statement(ServerStoreSchema.upsertMeta)
                for (key, value) in batch.counters where key != "epoch" { try meta.run([key, value]) }
            }
        }
    }

    func startNewEpoch() async throws -> String {
        try await onQueue { () throws(ChatError) in
            let epoch = ServerEpoch.random()
            try self.withConnection(while: "writing") { connection in try Self.storeEpoch(epoch, in: connection) }
            self.epoch = ServerEpoch.text(epoch)
            return self.epoch
        }
    }

    /// Releases the file (after every statement queued before). Idempotent.
    func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection.withLock { $0 = nil }
                self.fileLock.withLock { $0 = nil }
                done.resume()
            }
        }
    }

    /// The blob of `column` of the current row.
    private static func bytes(_ row: SQLiteStatement, _ column: Int32) -> [UInt8] {
        row.withBlob(at: column) { Array($0) }
    }

    // MARK: Testing

    /// The file's size in pages.
    func pageCount() throws -> Int {
        try connection.withLock { connection throws -> Int in try connection?.integer("PRAGMA page_count") ?? 0 }
    }

    /// Makes the file refuse to grow past `pages` pages (`SQLITE_FULL`, as a full disk does).
    func limitFileSize(toPages pages: Int) throws {
        try connection.withLock { connection throws in _ = try connection?.integer("PRAGMA max_page_count = \(pages)") }
    }
}
