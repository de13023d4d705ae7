import CSQLite
import ChatAPI
import Dispatch
import Foundation
import Locking
import RowCoding
import SQLiteSupport

/// The server's state in one SQLite file: the ``ServerStore`` of ``ServerStorage/sqlite(_:)``.
///
/// One connection, kept by this store alone (`locking_mode = EXCLUSIVE`: a second server on the
/// same file is refused). WAL journal; `synchronous = NORMAL` (a killed process loses no
/// commit) or `FULL` (nor does a power loss) by ``StorageDurability``.
///
/// Writing: ``enqueue(_:)`` merges each batch into the pending changes (newest value per key)
/// and wakes one writer on a serial queue, which takes everything pending, encodes it and
/// writes it in one transaction — so the changes of many concurrent calls share one commit, and
/// the engine's lock is never held across the disk. A failed commit fails the tickets it
/// covered and keeps its changes pending, ahead of newer ones; the writer tries again with the
/// next batch, or after a second.
///
/// - Threading: thread-safe. Lock order: the engine's lock, then ``state``, then
///   ``connection`` (the writer takes ``connection`` without ``state`` held; see `LockRank`).
final class SQLiteServerStore: ServerStore {
    let path: String
    let epoch: String
    /// Lock order: `LockRank.storeConnection`, innermost but for leaves.
    let connection: Lock<SQLiteConnection?>
    /// Lock order: `LockRank.storeWriter`, after the engine's lock, before ``connection``.
    private let state = Lock(CommitQueue(), rank: .storeWriter)
    private let queue = DispatchQueue(label: "LiveChannels.SQLiteServerStore.writer")
    let messagesPerChannel: Int

    /// The number of transactions committed so far (each holds one or more batches).
    var commitCount: Int { state.withLock { $0.commits } }

    var isHealthy: Bool { !state.withLock { $0.lastCommitFailed } }

    /// Opens (creating if needed) the store at `url`.
    ///
    /// - Throws: `ChatError.invalidArgument(field: "storage")` for a file that is not a server
    ///   store of ours (left untouched), a store written by a newer version, or a file another
    ///   server holds; `ChatError.unavailable` when the file cannot be opened or created.
    init(url: URL, durability: StorageDurability, messagesPerChannel: Int, startsNewEpoch: Bool = false)
        throws(ChatError)
    {
        path = url.path
        self.messagesPerChannel = messagesPerChannel
        let (opened, epoch) = try Self.open(path: url.path, durability: durability, startsNewEpoch: startsNewEpoch)
        self.epoch = ServerEpoch.text(epoch)
        connection = Lock(opened, rank: .storeConnection)
    }

    /// Opens the file and returns it with its epoch number (drawn and stored now if the file
    /// has none: a new store, or one written before epochs).
    private static func open(path: String, durability: StorageDurability, startsNewEpoch: Bool) throws(ChatError) -> (
        SQLiteConnection, Int
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
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = \(durability == .powerLoss ? "FULL" : "NORMAL")")
            if version < ServerStoreSchema.version { try ServerStoreSchema.migrate(connection, from: version) }
            // Takes the exclusive lock now, which this locking mode keeps until the store closes.
            try connection.execute("BEGIN IMMEDIATE; COMMIT")
            var epoch = try connection.integer("SELECT value FROM meta WHERE key = 'epoch'")
            if epoch <= 0 || startsNewEpoch {
                epoch = ServerEpoch.random()
                try connection.statement("INSERT OR REPLACE INTO meta(key, value) VALUES ('epoch', ?)").run([epoch])
            }
            return (connection, epoch)
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

    private static func notOurs(_ path: String, _ what: String) -> ChatError {
        .invalidArgument(
            field: "storage", reason: "'\(path)' is not a LiveChannels server store (\(what)); it was left untouched")
    }

    func failure(_ error: any Error, while doing: String) -> ChatError {
        if let error = error as? ChatError { return error }
        let reason = (error as? SQLiteError)?.message ?? "\(error)"
        return .unavailable("the server's storage '\(path)' failed \(doing): \(reason)")
    }

    // MARK: Reading history

    func messages(channelId: String, in range: ClosedRange<Int>) async throws(ChatError) -> [Message] {
        // What is queued but not yet written is newer than the file.
        let pending = state.withLock { state in
            range.compactMap { state.pending.messages[StorageChanges.MessageKey(channelId: channelId, sequence: $0)] }
        }
        var found: [Int: Message] = [:]
        do {
            try connection.withLock { connection throws in
                guard let connection else { throw ChatError.unavailable("the server's storage '\(path)' is closed") }
                try connection.statement(ServerStoreSchema.messagesInRange).query([
                    channelId, range.lowerBound, range.upperBound,
                ]) { row in
                    let message = try row.withBlob(at: 0) { try decode(Message.self, $0, "a message") }
                    found[message.sequence] = message
                }
            }
        } catch {
            throw failure(error, while: "reading messages")
        }
        for message in pending { found[message.sequence] = message }
        return found.keys.sorted().map { found[$0]! }
    }

    // MARK: Writing

    func enqueue(_ changes: StorageChanges) -> Int {
        let (schedule, ticket) = state.withLock { state -> (Bool, Int) in
            let ticket = state.add(changes)
            guard !state.pending.isEmpty, !state.isWriting else { return (false, ticket) }
            state.isWriting = true
            return (true, ticket)
        }
        if schedule { queue.async { self.writePending() } }
        return ticket
    }

    func waitUntilWritten(_ ticket: Int) async throws(ChatError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state in
                    state.outcome(
                        of: ticket, closed: .unavailable("the server's storage '\(path)' is closed"),
                        continuation: continuation)
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// The writer: commits everything pending, batch after batch, until nothing is.
    private func writePending() {
        while true {
            let (batch, through) = state.withLock { $0.takeBatch() }
            if batch.isEmpty {
                let again = state.withLock { state -> Bool in
                    if state.pending.isEmpty {
                        state.isWriting = false
                        return false
                    }
                    return true
                }
                if again { continue }
                return
            }
            let result: Result<Void, ChatError>
            do {
                try connection.withLock { connection throws in
                    guard let connection else {
                        throw ChatError.unavailable("the server's storage '\(path)' is closed")
                    }
                    try write(batch, to: connection)
                }
                result = .success(())
            } catch {
                result = .failure(failure(error, while: "writing"))
            }
            CommitQueue.resume(state.withLock { $0.finish(batch, through: through, with: result) })
            if case .failure = result {
                // Try again in a second (or with the next batch, whichever comes first).
                state.withLock { $0.isWriting = false }
                queue.asyncAfter(deadline: .now() + 1) { [weak self] in self?.retry() }
                return
            }
        }
    }

    private func retry() {
        let schedule = state.withLock { state -> Bool in
            guard !state.pending.isEmpty, !state.isWriting else { return false }
            state.isWriting = true
            return true
        }
        if schedule { writePending() }
    }

    private func write(_ batch: StorageChanges, to connection: SQLiteConnection) throws {
        var writer = RowWriter()
        func encoded(_ value: some RowCodable) throws -> [UInt8] {
            writer.removeAll()
            try value.encodeRow(to: &writer)
            return writer.bytes
        }
        try connection.transaction {
            let users = try connection.statement(ServerStoreSchema.upsertUser)
            for (id, user) in batch.users { try users.run([id, try encoded(user)]) }
            let channels = try connection.statement(ServerStoreSchema.upsertChannel)
            for (id, write) in batch.channels {
                try channels.bind(id, at: 1)
                try channels.bind(try encoded(write.info), at: 2)
                if let extras = write.extras {
                    try channels.bind(try encoded(extras), at: 3)
                } else {
                    try channels.bindNull(at: 3)
                }
                try channels.runBound()
            }
            let members = try connection.statement(ServerStoreSchema.upsertMember)
            let removed = try connection.statement(ServerStoreSchema.deleteMember)
            for (key, member) in batch.members {
                if let member {
                    try members.run([key.channelId, key.userId, try encoded(member)])
                } else {
                    try removed.run([key.channelId, key.userId])
                }
            }
            let messages = try connection.statement(ServerStoreSchema.upsertMessage)
            for (key, message) in batch.messages {
                try messages.run([key.channelId, key.sequence, try encoded(message)])
            }
            if batch.countersChanged {
                let meta = try connection.statement(ServerStoreSchema.upsertMeta)
                let counters = batch.counters
                try meta.run(["revision", counters.revision])
                try meta.run(["nextChannelNumber", counters.nextChannelNumber])
                try meta.run(["nextMessageNumber", counters.nextMessageNumber])
                try meta.run(["eventSequenceCeiling", counters.eventSequenceCeiling])
            }
        }
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

    // MARK: Closing

    func close() async {
        let first = state.withLock { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard first else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                self.state.withLock { $0.isWriting = true }
                self.writePending()
                let stranded = self.state.withLock { state in
                    state.isWriting = false
                    return state.takeWaiters()
                }
                for waiter in stranded {
                    waiter.continuation.resume(
                        throwing: ChatError.unavailable("the server's storage '\(self.path)' is closed"))
                }
                self.connection.withLock { $0 = nil }
                done.resume()
            }
        }
    }
}
