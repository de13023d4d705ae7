import ChatAPI

/// Restoring the newest messages of every channel at start: read in chunks, several at once,
/// decoded as they arrive, then checked into each channel's log.
extension DatabaseServerStore {
    /// How many channels' messages one read of ``newestMessages(in:of:)`` asks for.
    static let rangesPerRead = 5_000

    /// The messages of `ranges`, decoded and grouped by channel: read a few thousand channels at
    /// a time, several reads at once, each decoding its rows as soon as they arrive (a restart
    /// decodes a million messages on every core while the next rows are on their way).
    ///
    /// - Throws: `unavailable` when the database cannot be read or a row cannot be decoded
    ///   (naming the message).
    static func newestMessages(
        in ranges: [ServerRow.MessageRange], of database: any ServerDatabase
    ) async throws(ChatError) -> [String: [Message]] {
        let chunks = stride(from: 0, to: ranges.count, by: rangesPerRead).map {
            Array(ranges[$0..<min($0 + rangesPerRead, ranges.count)])
        }
        @Sendable func read(_ chunk: [ServerRow.MessageRange]) async throws -> [(String, Message)] {
            let rows: [ServerRow.Message]
            do {
                rows = try await database.messages(in: chunk)
            } catch {
                throw ChatError.unavailable("the server's database cannot be read: \(error)")
            }
            return try rows.map { row throws(ChatError) in
                (row.channelId, try decode(Message.self, row.value, "message \(row.sequence) of channel '\(row.channelId)'"))
            }
        }
        do {
            return try await withThrowingTaskGroup(of: [(String, Message)].self) { group in
                var byChannel: [String: [Message]] = [:]
                var next = 0
                func startNext() {
                    guard next < chunks.count else { return }
                    let chunk = chunks[next]
                    next += 1
                    group.addTask { try await read(chunk) }
                }
                for _ in 0..<4 { startNext() }
                while let part = try await group.next() {
                    startNext()
                    for (channelId, message) in part { byChannel[channelId, default: []].append(message) }
                }
                return byChannel
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .unavailable("the server's database cannot be read: \(error)")
        }
    }

    /// Each channel's log of its newest messages, from the messages read for them; every message
    /// from the log's first number to the channel's last must be there.
    static func messageLogs(
        of channels: [Channel], from byChannel: [String: [Message]], messagesPerChannel: Int
    ) throws(ChatError) -> [String: NumberedLog<Message>] {
        var logs: [String: NumberedLog<Message>] = [:]
        for channel in channels where channel.lastSequence > 0 {
            var log = emptyLog(of: channel, messagesPerChannel: messagesPerChannel)
            for message in (byChannel[channel.channelId] ?? []).sorted(by: { $0.sequence < $1.sequence }) {
                guard message.sequence > log.lastSequence else { continue }
                guard message.sequence == log.lastSequence + 1, message.channelId == channel.channelId else {
                    throw .unavailable(
                        "the server's database is damaged: channel '\(channel.channelId)' lacks message \(log.lastSequence + 1)")
                }
                log.append(at: .distantPast) { _ in message }
            }
            guard log.lastSequence == channel.lastSequence else {
                throw .unavailable(
                    "the server's database is damaged: channel '\(channel.channelId)' lacks messages up to \(channel.lastSequence)")
            }
            logs[channel.channelId] = log
        }
        return logs
    }
}
