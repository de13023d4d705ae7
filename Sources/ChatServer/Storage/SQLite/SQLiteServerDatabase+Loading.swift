import CSQLite
import ChatAPI
import Dispatch
import Foundation
import Locking
import RowCoding
import SQLiteSupport

/// Reading the file at start, synchronously and decoding each row in place (no copy of its
/// bytes): the state (users, channels, members, counters), then each channel's newest messages
/// while the engine rebuilds its state on another thread (``ChatServer/init(clock:configuration:storage:)``).
extension SQLiteServerDatabase {
    /// The stored state, each channel's log of kept messages empty (numbered to continue with its
    /// oldest kept message).
    ///
    /// - Throws: `unavailable` naming the file and the record that cannot be read.
    func loadState(messagesPerChannel: Int) throws(ChatError) -> StoredState {
        try withConnection(while: "reading") { connection in
            try readState(from: connection, messagesPerChannel: messagesPerChannel)
        }
    }

    /// The newest `messagesPerChannel` messages of each of `channels`.
    ///
    /// - Throws: `unavailable` naming the file and the message that cannot be read, or a channel
    ///   that lacks one.
    func loadNewestMessages(of channels: [Channel], messagesPerChannel: Int) throws(ChatError) -> StoredMessages {
        try withConnection(while: "reading") { connection in
            try readMessages(of: channels, from: connection, messagesPerChannel: messagesPerChannel)
        }
    }

    private func readState(from connection: SQLiteConnection, messagesPerChannel: Int) throws -> StoredState {
        var stored = StoredState()
        var messagesSent: Int?
        try connection.statement("SELECT key, value FROM meta").query { row in
            let value = row.int(at: 1)
            switch row.string(at: 0) {
            case "revision": stored.counters.revision = value
            case "nextChannelNumber": stored.counters.nextChannelNumber = value
            case "nextMessageNumber": stored.counters.nextMessageNumber = value
            case "eventSequenceCeiling": stored.counters.eventSequenceCeiling = value
            case "messagesSent": messagesSent = value
            default: break
            }
        }
        // A file written before messages were counted: those the server numbered itself.
        stored.counters.messagesSent = messagesSent ?? (stored.counters.nextMessageNumber - 1)
        try connection.statement("SELECT id, value FROM users").query { row in
            stored.users.append(
                try row.withBlob(at: 1) { try decode(StoredUser.self, $0, "user '\(row.string(at: 0))'") })
        }
        var members: [String: [MemberRecord]] = [:]
        try connection.statement("SELECT channel, value FROM members").query { row in
            let channelId = row.string(at: 0)
            let member = try row.withBlob(at: 1) {
                try decode(MemberRecord.self, $0, "a member of channel '\(channelId)'")
            }
            members[channelId, default: []].append(member)
        }
        try connection.statement("SELECT id, info, extras FROM channels").query { row in
            let channelId = row.string(at: 0)
            let info = try row.withBlob(at: 1) { try decode(Channel.self, $0, "channel '\(channelId)'") }
            let extras =
                row.isNull(at: 2)
                ? nil
                : try row.withBlob(at: 2) {
                    try decode(ChannelExtras.self, $0, "the moderation state of channel '\(channelId)'")
                }
            stored.channels.append(
                StoredState.StoredChannel(
                    info: info, extras: extras, members: members[info.channelId] ?? [],
                    messages: DatabaseServerStore.emptyLog(of: info, messagesPerChannel: messagesPerChannel)))
        }
        return stored
    }

    private func readMessages(of channels: [Channel], from connection: SQLiteConnection, messagesPerChannel: Int)
        throws -> StoredMessages
    {
        var logs = channels.map { DatabaseServerStore.emptyLog(of: $0, messagesPerChannel: messagesPerChannel) }
        var locations: [String: ServerState.MessageLocation] = [:]
        locations.reserveCapacity(channels.reduce(0) { $0 + min($1.lastSequence, messagesPerChannel) })
        func append(_ row: SQLiteStatement, to index: Int, valueColumn: Int32) throws {
            let channelId = channels[index].channelId
            let message = try row.withBlob(at: valueColumn) {
                try decode(Message.self, $0, "a message of channel '\(channelId)'")
            }
            guard message.sequence == logs[index].lastSequence + 1, message.channelId == channelId else {
                throw ChatError.unavailable(
                    "the server's storage '\(path)' is damaged: channel '\(channelId)' lacks message \(logs[index].lastSequence + 1)"
                )
            }
            logs[index].append(at: .distantPast) { _ in message }
            locations[message.messageId] = ServerState.MessageLocation(channelId: channelId, sequence: message.sequence)
        }
        // Every message ever sent is stored: when memory keeps most of them, one scan in key
        // order (channel, sequence) reads them fastest; else each channel's newest are sought.
        let total = channels.reduce(0) { $0 + $1.lastSequence }
        if total <= 2 * locations.capacity {
            let indexes = Dictionary(uniqueKeysWithValues: channels.indices.map { (channels[$0].channelId, $0) })
            try connection.statement("SELECT channel, sequence, value FROM messages ORDER BY channel, sequence").query {
                row in
                guard let index = indexes[row.string(at: 0)], row.int(at: 1) > logs[index].lastSequence else { return }
                try append(row, to: index, valueColumn: 2)
            }
        } else {
            let statement = try connection.statement(ServerStoreSchema.messagesInRange)
            for index in channels.indices where channels[index].lastSequence > 0 {
                try statement.query([
                    channels[index].channelId, logs[index].lastSequence + 1, channels[index].lastSequence,
                ]) { row in
                    try append(row, to: index, valueColumn: 0)
                }
            }
        }
        for (index, channel) in channels.enumerated() where logs[index].lastSequence != channel.lastSequence {
            throw ChatError.unavailable(
                "the server's storage '\(path)' is damaged: channel '\(channel.channelId)' lacks messages up to \(channel.lastSequence)"
            )
        }
        return StoredMessages(logs: logs, locations: locations)
    }

    private func decode<Value: RowCodable>(_ type: Value.Type, _ bytes: UnsafeRawBufferPointer, _ what: String) throws
        -> Value
    {
        do {
            return try Value.decodeRow(bytes)
        } catch {
            throw ChatError.unavailable("the server's storage '\(path)' is damaged: \(what) cannot be read (\(error))")
        }
    }
}
