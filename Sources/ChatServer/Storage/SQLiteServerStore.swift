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
    private let connection: Lock<SQLiteConnection?>
    /// Lock order: `LockRank.storeWriter`, after the engine's lock, before ``connection``.
    private let state = Lock(CommitQueue(), rank: .storeWriter)
    private let queue = DispatchQueue(label: "LiveChannels.SQLiteServerStore.writer")
    private let messagesPerChannel: Int

    /// The number of transactions committed so far (each holds one or more batches).
    var commitCount: Int { state.withLock { $0.commits } }

    var isHealthy: Bool { !state.withLock { $0.lastCommitFailed } }

    /// Opens (creating if needed) the store at `url`.
    ///
    /// - Throws: `ChatError.invalidArgument(field: "storage")` for a file that is not a server
    ///   store of ours (left untouched), a store written by a newer version, or a file another
    ///   server holds; `ChatError.unavailable` when the file cannot be opened or created.
    init(url: URL, durability: StorageDurability, messagesPerChannel: Int, startsNewEpoch: Bool = false) throws(ChatError) {
        path = url.path
        self.messagesPerChannel = messagesPerChannel
        let (opened, epoch) = try Self.open(path: url.path, durability: durability, startsNewEpoch: startsNewEpoch)
        self.epoch = ServerEpoch.text(epoch)
        connection = Lock(opened, rank: .storeConnection)
    }

    /// Opens the file and returns it with its epoch number (drawn and stored now if the file
    /// has none: a new store, or one written before epochs).
    private static func open(path: String, durability: StorageDurability, startsNewEpoch: Bool) throws(ChatError) -> (SQLiteConnection, Int) {
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
                    reason: "'\(path)' was written by a newer version (schema \(version), this build reads up to \(ServerStoreSchema.version)); it was left untouched")
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
        .invalidArgument(field: "storage", reason: "'\(path)' is not a LiveChannels server store (\(what)); it was left untouched")
    }

    private func failure(_ error: any Error, while doing: String) -> ChatError {
        if let error = error as? ChatError { return error }
        let reason = (error as? SQLiteError)?.message ?? "\(error)"
        return .unavailable("the server's storage '\(path)' failed \(doing): \(reason)")
    }

    // MARK: Loading

    func loadState() throws(ChatError) -> StoredState {
        try reading { connection throws in try readState(from: connection) }
    }

    func loadMessages(of channels: [Channel]) throws(ChatError) -> StoredMessages {
        try reading { connection throws in try readMessages(of: channels, from: connection) }
    }

    private func reading<Result: Sendable>(_ body: (SQLiteConnection) throws -> Result) throws(ChatError) -> Result {
        do {
            return try connection.withLock { connection throws -> Result in
                guard let connection else { throw ChatError.unavailable("the server's storage '\(path)' is closed") }
                return try body(connection)
            }
        } catch {
            throw failure(error, while: "reading")
        }
    }

    private func readState(from connection: SQLiteConnection) throws -> StoredState {
        var stored = StoredState()
        try connection.statement("SELECT key, value FROM meta").query { row in
            let value = row.int(at: 1)
            switch row.string(at: 0) {
            case "revision": stored.counters.revision = value
            case "nextChannelNumber": stored.counters.nextChannelNumber = value
            case "nextMessageNumber": stored.counters.nextMessageNumber = value
            case "eventSequenceCeiling": stored.counters.eventSequenceCeiling = value
            default: break
            }
        }
        try connection.statement("SELECT id, value FROM users").query { row in
            stored.users.append(try row.withBlob(at: 1) { try decode(User.self, $0, "user '\(row.string(at: 0))'") })
        }
        var members: [String: [MemberRecord]] = [:]
        try connection.statement("SELECT channel, value FROM members").query { row in
            let channelId = row.string(at: 0)
            let member = try row.withBlob(at: 1) { try decode(MemberRecord.self, $0, "a member of channel '\(channelId)'") }
            members[channelId, default: []].append(member)
        }
        try connection.statement("SELECT id, info, extras FROM channels").query { row in
            let channelId = row.string(at: 0)
            let info = try row.withBlob(at: 1) { try decode(Channel.self, $0, "channel '\(channelId)'") }
            let extras =
                row.isNull(at: 2)
                ? nil : try row.withBlob(at: 2) { try decode(ChannelExtras.self, $0, "the moderation state of channel '\(channelId)'") }
            stored.channels.append(
                StoredState.StoredChannel(info: info, extras: extras, members: members[info.channelId] ?? [], messages: emptyLog(of: info)))
        }
        return stored
    }

    /// The log of kept messages of a channel, before any is read: numbered to continue with its
    /// oldest kept message.
    private func emptyLog(of info: Channel) -> NumberedLog<Message> {
        let first = max(1, info.lastSequence - messagesPerChannel + 1)
        return NumberedLog(capacity: messagesPerChannel, restoring: [], lastSequence: first - 1, at: .distantPast)
    }

    private func readMessages(of channels: [Channel], from connection: SQLiteConnection) throws -> StoredMessages {
        var logs = channels.map(emptyLog)
        var locations: [String: ServerState.MessageLocation] = [:]
        locations.reserveCapacity(channels.reduce(0) { $0 + min($1.lastSequence, messagesPerChannel) })
        func append(_ row: SQLiteStatement, to index: Int, valueColumn: Int32) throws {
            let channelId = channels[index].channelId
            let message = try row.withBlob(at: valueColumn) { try decode(Message.self, $0, "a message of channel '\(channelId)'") }
            guard message.sequence == logs[index].lastSequence + 1, message.channelId == channelId else {
                throw ChatError.unavailable(
                    "the server's storage '\(path)' is damaged: channel '\(channelId)' lacks message \(logs[index].lastSequence + 1)")
            }
            logs[index].append(at: .distantPast) { _ in message }
            locations[message.messageId] = ServerState.MessageLocation(channelId: channelId, sequence: message.sequence)
        }
        // Every message ever sent is stored: when memory keeps most of them, one scan in key
        // order (channel, sequence) reads them fastest; else each channel's newest are sought.
        let total = channels.reduce(0) { $0 + $1.lastSequence }
        if total <= 2 * locations.capacity {
            let indexes = Dictionary(uniqueKeysWithValues: channels.indices.map { (channels[$0].channelId, $0) })
            try connection.statement("SELECT channel, sequence, value FROM messages ORDER BY channel, sequence").query { row in
                guard let index = indexes[row.string(at: 0)], row.int(at: 1) > logs[index].lastSequence else { return }
                try append(row, to: index, valueColumn: 2)
            }
        } else {
            let statement = try connection.statement(ServerStoreSchema.messagesInRange)
            for index in channels.indices where channels[index].lastSequence > 0 {
                try statement.query([channels[index].channelId, logs[index].lastSequence + 1, channels[index].lastSequence]) { row in
                    try append(row, to: index, valueColumn: 0)
                }
            }
        }
        for (index, channel) in channels.enumerated() where logs[index].lastSequence != channel.lastSequence {
            throw ChatError.unavailable(
                "the server's storage '\(path)' is damaged: channel '\(channel.channelId)' lacks messages up to \(channel.lastSequence)")
        }
        return StoredMessages(logs: logs, locations: locations)
    }

    private func decode<Value: RowCodable>(_ type: Value.Type, _ bytes: UnsafeRawBufferPointer, _ what: String) throws -> Value {
        do {
            return try Value.decodeRow(bytes)
        } catch {
            throw ChatError.unavailable("the server's storage '\(path)' is damaged: \(what) cannot be read (\(error))")
        }
    }

    // MARK: Reading history

    func messages(channelId: String, in range: ClosedRange<Int>) throws(ChatError) -> [Message] {
        // What is queued but not yet written is newer than the file.
        let pending = state.withLock { state in
            range.compactMap { state.pending.messages[StorageChanges.MessageKey(channelId: channelId, sequence: $0)] }
        }
        var found: [Int: Message] = [:]
        do {
            try connection.withLock { connection throws in
                guard let connection else { throw ChatError.unavailable("the server's storage '\(path)' is closed") }
                try connection.statement(ServerStoreSchema.messagesInRange).query([channelId, range.lowerBound, range.upperBound]) { row in
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
                        of: ticket, closed: .unavailable("the server's storage '\(path)' is closed"), continuation: continuation)
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
                    guard let connection else { throw ChatError.unavailable("the server's storage '\(path)' is closed") }
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
                if let extras = write.extras { try channels.bind(try encoded(extras), at: 3) } else { try channels.bindNull(at: 3) }
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
            for (key, message) in batch.messages { try messages.run([key.channelId, key.sequence, try encoded(message)]) }
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
                    waiter.continuation.resume(throwing: ChatError.unavailable("the server's storage '\(self.path)' is closed"))
                }
                self.connection.withLock { $0 = nil }
                done.resume()
            }
        }
    }
}
