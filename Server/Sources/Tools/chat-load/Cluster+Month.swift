import ChatAPI
import ChatServerPostgres
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// `chat-load cluster --runs month`: a long send load through the nodes (`--month-messages`,
/// a million by default), with what the database keeps sampled as it goes — the change log's
/// rows and size, the messages' table and the whole database — so that a bounded log (and a
/// database that grows only by the messages themselves) shows in figures.
extension Cluster {
    func month(_ endpoint: PostgresEndpoint) async throws {
        let total = monthMessages
        let perSender = (total + senders - 1) / senders
        print(
            "## cluster — \(perSender * senders) messages through \(nodes) nodes on PostgreSQL (\(senders) senders, \(window) in flight each)\n"
        )
        print(
            "| seconds | messages acknowledged | messages/s (since the row before) | chat.log rows | chat_log_entries (node 0) | chat.log size | chat.messages size | database size |"
        )
        print("|---|---|---|---|---|---|---|---|")
        let started = try await start(nodes, endpoint)
        defer { for node in started { node.stop() } }
        var clients: [RawClient] = []
        for index in 0..<senders {
            let client = try await RawClient.connect(port: started[index % started.count].port, user: "s\(index)")
            // A live channel, seen by its member only: in a community channel each message would
            // also go to every other sender (a `channelUpdated` for their channel lists).
            _ = try await client.request(
                .createChannel(ChannelDraft(type: .live, channelId: "s\(index)", userIds: [])))
            clients.append(client)
        }
        // A constant: the sampling task and this one both use it.
        let logger = {
            var logger = Logger(label: "chat-load")
            logger.logLevel = .error
            return logger
        }()
        let database = PostgresServerDatabase(endpoint, logger: logger)
        defer { Task { await database.close() } }
        let acknowledged = NIOLockedValueBox(0)
        let start = ContinuousClock.now
        let every = sampleEvery
        let sampler = Task {
            var previous = (count: 0, at: start)
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(every * 1_000)))
                if Task.isCancelled { break }
                let now = ContinuousClock.now
                let count = acknowledged.withLockedValue { $0 }
                let rate = Double(count - previous.count) / Storage.seconds(now - previous.at)
                previous = (count, now)
                try? await Self.sampleRow(
                    seconds: Storage.seconds(now - start), acknowledged: count, rate: rate, database: database,
                    metricsPort: started[0].port, logger: logger)
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, client) in clients.enumerated() {
                let window = window
                group.addTask {
                    try await Self.send(
                        count: perSender, from: client, into: "s\(index)", window: window, acknowledged: acknowledged)
                }
            }
            try await group.waitForAll()
        }
        sampler.cancel()
        let finished = ContinuousClock.now
        let count = acknowledged.withLockedValue { $0 }
        try await Self.sampleRow(
            seconds: Storage.seconds(finished - start), acknowledged: count,
            rate: Double(count) / Storage.seconds(finished - start), database: database,
            metricsPort: started[0].port, logger: logger)
        // Two beats later (a node beats every 5 s): what the quiet log keeps.
        try await Task.sleep(for: .seconds(11))
        try await Self.sampleRow(
            seconds: Storage.seconds(ContinuousClock.now - start), acknowledged: count, rate: 0, database: database,
            metricsPort: started[0].port, logger: logger)
        for client in clients { await client.connection.close(code: 1000, reason: "") }
        print("\n(the last rows: the whole run's rate, then the quiet log two beats later)\n")
    }

    /// Sends `count` messages into `channelId`, `window` unanswered at most; counts the
    /// acknowledged ones in `acknowledged` as they are answered.
    private static func send(
        count: Int, from client: RawClient, into channelId: String, window: Int, acknowledged: NIOLockedValueBox<Int>
    ) async throws {
        let free = Semaphore(window)
        let answers = Task {
            var answered = 0
            for await item in client.connection.inbound {
                guard case .text(let text) = item, FrameText.isAnswer(text) else { continue }
                answered += 1
                if FrameText.contains(text, "\"type\":\"response\"") { acknowledged.withLockedValue { $0 += 1 } }
                free.signal()
                if answered == count { break }
            }
            // The connection ended early: no send waits for a place any more.
            for _ in 0..<window { free.signal() }
        }
        for number in 0..<count {
            await free.wait()
            try await client.connection.send(
                WireCodec.encode(
                    .request(id: number, request: .sendMessage(MessageDraft(channelId: channelId, text: "m\(number)")))
                ))
        }
        await answers.value
    }

    private static func sampleRow(
        seconds: Double, acknowledged: Int, rate: Double, database: PostgresServerDatabase, metricsPort: Int,
        logger: Logger
    ) async throws {
        let row = try await database.client.query(
            """
            SELECT (SELECT count(*) FROM chat.log), pg_total_relation_size('chat.log'),
                pg_total_relation_size('chat.messages'), pg_database_size(current_database())
            """, logger: logger
        ).collect().first
        guard let (rows, logBytes, messageBytes, databaseBytes) = try row?.decode((Int, Int, Int, Int).self) else {
            return
        }
        var kept = "—"
        if let (data, _) = try? await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(metricsPort)/metrics")!)
        {
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
            where line.hasPrefix("chat_log_entries ") {
                kept = String(Int(Double(line.split(separator: " ").last ?? "") ?? 0))
            }
        }
        func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        print(
            "| \(Int(seconds)) | \(acknowledged) | \(Int(rate)) | \(rows) | \(kept) | \(megabytes(logBytes)) | \(megabytes(messageBytes)) | \(megabytes(databaseBytes)) |"
        )
    }
}
