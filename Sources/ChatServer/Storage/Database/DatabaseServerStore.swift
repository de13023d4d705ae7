import ChatAPI
import Foundation
import Locking
import RowCoding

/// The ``ServerStore`` of every ``ServerDatabase`` — the SQLite file (``SQLiteServerDatabase``)
/// and the `Server/` package's PostgreSQL alike: encodes the engine's changes into rows, writes
/// them in batches (group commit: the one writer of every store), reads old history for the
/// engine outside its lock, and decodes what the database held at start.
///
/// Loading is asynchronous and done before the engine is made: ``open(_:messagesPerChannel:startsNewEpoch:)``
/// reads and decodes the state, then ``newestMessages(of:)`` (in `DatabaseServerStore+Loading.swift`)
/// reads the messages while the caller rebuilds the engine's state from it.
///
/// Writing: ``enqueue(_:)`` merges each batch into the pending changes (newest value per key)
/// and starts the writer when none runs; the writer takes everything pending, encodes it and
/// hands it to ``ServerDatabase/write(_:)`` as one transaction — so the changes of many
/// concurrent calls share one commit. The writer is a task that gathers callers before each
/// batch (a commit is a round trip), or, for a ``LocalServerDatabase`` (the SQLite file), a loop
/// on the database's own thread. A failed write fails the tickets it covered and keeps its
/// changes pending, ahead of newer ones; the writer tries again after a second, or with the
/// next batch.
///
/// Reading history beyond memory (``messages(channelId:in:)``) is asynchronous: the engine asks
/// outside its lock, and a read that takes longer than ``readTimeout`` fails with `unavailable`
/// (the database's read goes on in the background and its answer is dropped).
///
/// - Threading: thread-safe. Lock order: the engine's lock, then ``state`` (see `LockRank`).
final class DatabaseServerStore: ServerStore {
    let database: any ServerDatabase
    let epoch: String
    let messagesPerChannel: Int
    /// Lock order: `LockRank.storeWriter`, after the engine's lock.
    let state = Lock(CommitQueue<StorageChanges>(), rank: .storeWriter)

    /// The longest a read of old messages waits for the database.
    static let readTimeout: TimeInterval = 10
    /// How long the writer waits before it tries a failed batch again.
    static let retryDelay: Duration = .seconds(1)

    /// The number of transactions committed so far.
    var commitCount: Int { state.withLock { $0.commits } }

    var isHealthy: Bool { !state.withLock { $0.lastCommitFailed } }

    /// A store on `database`, whose state the caller has read (``open(_:messagesPerChannel:startsNewEpoch:)``
    /// reads it; an SQLite file is read synchronously, in place, by its own loader).
    init(database: any ServerDatabase, epoch: String, messagesPerChannel: Int) {
        self.database = database
        self.epoch = epoch
        self.messagesPerChannel = messagesPerChannel
    }

    /// Opens `database` and reads its state (each channel's log of messages empty, numbered to
    /// continue with its oldest kept message): the store, and the state to rebuild the engine's
    /// from while ``newestMessages(of:)`` reads the messages.
    ///
    /// - Throws: `unavailable` naming what failed: the database could not be opened or read, or
    ///   a row cannot be decoded (naming the record).
    static func open(
        _ database: any ServerDatabase, messagesPerChannel: Int, startsNewEpoch: Bool = false
    ) async throws(ChatError) -> (store: DatabaseServerStore, state: StoredState) {
        var contents: ServerDatabaseContents
        do {
            contents = try await database.open()
            if startsNewEpoch { contents.epoch = try await database.startNewEpoch() }
        } catch {
            throw .unavailable("the server's database cannot be opened: \(error)")
        }
        let state = try decode(contents, messagesPerChannel: messagesPerChannel)
        let store = DatabaseServerStore(
            database: database, epoch: contents.epoch, messagesPerChannel: messagesPerChannel)
        return (store, state)
    }

    // MARK: Decoding

    /// The log of kept messages of a channel, before any is read: numbered to continue with its
    /// oldest kept message.
    static func emptyLog(of info: Channel, messagesPerChannel: Int) -> NumberedLog<Message> {
        let first = max(1, info.lastSequence - messagesPerChannel + 1)
        return NumberedLog(capacity: messagesPerChannel, restoring: [], lastSequence: first - 1, at: .distantPast)
    }

    private static func decode(_ contents: ServerDatabaseContents, messagesPerChannel: Int) throws(ChatError)
        -> StoredState
    {
        var stored = StoredState()
        stored.counters.revision = contents.counters["revision"] ?? 0
        stored.counters.nextChannelNumber = contents.counters["nextChannelNumber"] ?? 1
        stored.counters.nextMessageNumber = contents.counters["nextMessageNumber"] ?? 1
        stored.counters.messagesSent =
            contents.counters["messagesSent"] ?? (stored.counters.nextMessageNumber - 1)
        stored.counters.eventSequenceCeiling = contents.counters["eventSequenceCeiling"] ?? 0
        stored.counters.logPosition = contents.counters["logPosition"] ?? 0
        for row in contents.connections {
            stored.connections[ServerState.DeviceKey(userId: row.device.userId, deviceId: row.device.deviceId)] =
                ConnectionTable.Connection(node: row.node, attachedAt: row.attachedAt, reading: Set(row.reading))
        }
        for row in contents.deviceEvents {
            stored.deviceEvents[ServerState.DeviceKey(userId: row.device.userId, deviceId: row.device.deviceId)] =
                row.lastSequence
        }
        for row in contents.users {
            stored.users.append(try decode(StoredUser.self, row.value, "user '\(row.userId)'"))
        }
        var members: [String: [MemberRecord]] = [:]
        for row in contents.members {
            let member = try decode(
                MemberRecord.self, row.value, "member '\(row.key.userId)' of channel '\(row.key.channelId)'")
            members[row.key.channelId, default: []].append(member)
        }
        for row in contents.channels {
            let info = try decode(Channel.self, row.info, "channel '\(row.channelId)'")
            let extras = try row.extras.map { bytes throws(ChatError) in
                try decode(ChannelExtras.self, bytes, "the moderation state of channel '\(row.channelId)'")
            }
            stored.channels.append(
                StoredState.StoredChannel(
                    info: info, extras: extras, members: members[info.channelId] ?? [],
                    messages: emptyLog(of: info, messagesPerChannel: messagesPerChannel)))
        }
        return stored
    }

    static func decode<Value: RowCodable>(_ type: Value.Type, _ bytes: [UInt8], _ what: String) throws(ChatError)
        -> Value
    {
        do {
            return try Value.decodeRow(bytes)
        } catch {
            throw .unavailable("the server's database is damaged: \(what) cannot be read (\(error))")
        }
    }

    // MARK: Reading history

    func messages(channelId: String, in range: ClosedRange<Int>) async throws(ChatError) -> [Message] {
        // What is queued but not yet written is newer than the database.
        let pending = state.withLock { state in
            range.compactMap { state.pending.messages[StorageChanges.MessageKey(channelId: channelId, sequence: $0)] }
        }
        let database = database
        let result = await TimeLimit.result(within: .seconds(Self.readTimeout)) {
            try await database.messages(in: [ServerRow.MessageRange(channelId: channelId, sequences: range)])
        }
        var found: [Int: Message] = [:]
        switch result {
        case .success(let rows)?:
            for row in rows where row.channelId == channelId && range.contains(row.sequence) {
                found[row.sequence] = try Self.decode(
                    Message.self, row.value, "message \(row.sequence) of channel '\(channelId)'")
            }
        case .failure(let error)?:
            throw .unavailable("the server's database cannot be read: \(error)")
        case nil:
            throw .unavailable("the server's database did not answer within \(Int(Self.readTimeout)) s")
        }
        for message in pending { found[message.sequence] = message }
        return found.keys.sorted().map { found[$0]! }
    }
}
