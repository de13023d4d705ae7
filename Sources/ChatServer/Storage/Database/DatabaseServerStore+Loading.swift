import ChatAPI

/// Restoring the newest messages of every channel at start: read in chunks, several at once,
/// each chunk decoded and made into its channels' logs as soon as it arrives, while the caller
/// rebuilds the rest of the state.
extension DatabaseServerStore {
    /// How many channels' messages one read of ``newestMessages(of:)`` asks for.
    static let rangesPerRead = 5_000
    /// How many reads of ``newestMessages(of:)`` run at once.
    static let concurrentReads = 4

    /// The newest ``messagesPerChannel`` messages of each of `channels`: a log per channel, in
    /// the order of `channels` (numbered to continue with its oldest kept message), and where
    /// each message is.
    ///
    /// Reads a few thousand channels at a time, ``concurrentReads`` reads at once; each read
    /// decodes its rows and builds its channels' logs as soon as its rows arrive, so decoding
    /// a million messages runs on every core while the next rows are on their way. O(m log k)
    /// for m messages of at most k per channel.
    ///
    /// - Throws: `unavailable` when the database cannot be read, a row cannot be decoded
    ///   (naming the message), or a channel lacks a message between its oldest kept and its
    ///   last (a damaged database).
    func newestMessages(of channels: [Channel]) async throws(ChatError) -> StoredMessages {
        let messagesPerChannel = messagesPerChannel
        let withMessages = channels.filter { $0.lastSequence > 0 }
        let chunks = stride(from: 0, to: withMessages.count, by: Self.rangesPerRead).map {
            Array(withMessages[$0..<min($0 + Self.rangesPerRead, withMessages.count)])
        }
        let database = database
        @Sendable func read(_ chunk: [Channel]) async throws -> LoadedChunk {
            let ranges = chunk.map { channel in
                ServerRow.MessageRange(
                    channelId: channel.channelId,
                    sequences: max(1, channel.lastSequence - messagesPerChannel + 1)...channel.lastSequence)
            }
            let rows: [ServerRow.Message]
            do {
                rows = try await database.messages(in: ranges)
            } catch {
                throw ChatError.unavailable("the server's database cannot be read: \(error)")
            }
            return try Self.loadedChunk(of: chunk, from: rows, messagesPerChannel: messagesPerChannel)
        }
        var logs: [String: NumberedLog<Message>] = [:]
        logs.reserveCapacity(withMessages.count)
        var locations: [String: ServerState.MessageLocation] = [:]
        locations.reserveCapacity(withMessages.reduce(0) { $0 + min($1.lastSequence, messagesPerChannel) })
        do {
            try await withThrowingTaskGroup(of: LoadedChunk.self) { group in
                var next = 0
                func startNext() {
                    guard next < chunks.count else { return }
                    let chunk = chunks[next]
                    next += 1
                    group.addTask { try await read(chunk) }
                }
                for _ in 0..<Self.concurrentReads { startNext() }
                while let part = try await group.next() {
                    startNext()
                    for (channelId, log) in part.logs { logs[channelId] = log }
                    for (messageId, location) in part.locations { locations[messageId] = location }
                }
            }
        } catch let error as ChatError {
            throw error
        } catch {
            throw .unavailable("the server's database cannot be read: \(error)")
        }
        let ordered = channels.map {
            logs[$0.channelId] ?? Self.emptyLog(of: $0, messagesPerChannel: messagesPerChannel)
        }
        return StoredMessages(logs: ordered, locations: locations)
    }

    /// The logs and message locations of one read's channels.
    struct LoadedChunk: Sendable {
        var logs: [(String, NumberedLog<Message>)] = []
        var locations: [(String, ServerState.MessageLocation)] = []
    }

    /// Decodes `rows` (the newest messages of `channels`) into each channel's log; every message
    /// from the log's first number to the channel's last must be there. One pass when the rows
    /// come in the order of `channels` and of sequence (as the PostgreSQL store sends them);
    /// sorted first otherwise.
    static func loadedChunk(
        of channels: [Channel], from rows: [ServerRow.Message], messagesPerChannel: Int
    ) throws(ChatError) -> LoadedChunk {
        let indexes = Dictionary(
            channels.indices.map { (channels[$0].channelId, $0) }, uniquingKeysWith: { first, _ in first })
        func index(of row: ServerRow.Message) -> Int { indexes[row.channelId] ?? -1 }
        var sorted = true
        var previous = (index: -1, sequence: 0)
        for row in rows {
            let current = (index: index(of: row), sequence: row.sequence)
            if current.index < previous.index
                || (current.index == previous.index && current.sequence <= previous.sequence)
            {
                sorted = false
                break
            }
            previous = current
        }
        let ordered = sorted ? rows : rows.sorted { (index(of: $0), $0.sequence) < (index(of: $1), $1.sequence) }
        var logs = channels.map { emptyLog(of: $0, messagesPerChannel: messagesPerChannel) }
        var chunk = LoadedChunk()
        chunk.locations.reserveCapacity(rows.count)
        for row in ordered {
            let index = index(of: row)
            guard index >= 0, row.sequence > logs[index].lastSequence else { continue }
            let channelId = channels[index].channelId
            let message = try decode(Message.self, row.value, "message \(row.sequence) of channel '\(channelId)'")
            guard message.sequence == logs[index].lastSequence + 1, message.channelId == channelId else {
                throw .unavailable(
                    "the server's database is damaged: channel '\(channelId)' lacks message \(logs[index].lastSequence + 1)"
                )
            }
            logs[index].append(at: .distantPast) { _ in message }
            chunk.locations.append(
                (message.messageId, ServerState.MessageLocation(channelId: channelId, sequence: message.sequence)))
        }
        for (index, channel) in channels.enumerated() {
            guard logs[index].lastSequence == channel.lastSequence else {
                throw .unavailable(
                    "the server's database is damaged: channel '\(channel.channelId)' lacks messages up to \(channel.lastSequence)"
                )
            }
        }
        chunk.logs = Array(zip(channels.map(\.channelId), logs))
        return chunk
    }
}
