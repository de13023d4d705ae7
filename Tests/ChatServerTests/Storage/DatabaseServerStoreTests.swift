import ChatAPI
import Foundation
import Testing
import TestSupport

@_spi(Testing) @testable import ChatServer

/// The database seam (`ServerDatabase`, `ChatServer(opening: .database(_:))`): what the SQLite file
/// guarantees holds for any database behind it — every stored field back after a restart,
/// unlimited history, group commit, a failed commit failing the calls it covered, a damaged
/// row refused by name. Run on an in-memory database; the `Server/` package's PostgreSQL store
/// is the same seam.
@Suite struct DatabaseServerStoreTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aRestartRestoresEverythingStored(seed: UInt64) async throws {
        let seed = SeededGenerator.testSeed(seed)
        let database = MemoryDatabase()
        let clock = ManualClock()
        let configuration = ServerConfiguration(messagesPerChannel: 3)
        let server = try await ChatServer(clock: clock, configuration: configuration, opening: .database(database))
        var workload = StorageWorkload(seed: seed)
        try await workload.run(1_000, on: server, clock: clock)
        let before = StoredSnapshot(server)
        let epoch = server.epoch
        await server.close()

        let reopened = try await ChatServer(clock: clock, configuration: configuration, opening: .database(database))
        let after = StoredSnapshot(reopened)
        #expect(after == before, "seed \(seed)")
        #expect(reopened.epoch == epoch, "the same history")
        #expect(before.channels.values.contains { $0.messageCount > 3 }, "the run pages past the kept messages")
        await reopened.close()
        let other = try await ChatServer(opening: .database(MemoryDatabase()))
        #expect(other.epoch != epoch)
        await other.close()
        // After a backup is restored: a new history, kept by the starts that follow.
        var restored = configuration
        restored.startsNewEpoch = true
        let renewed = try await ChatServer(clock: clock, configuration: restored, opening: .database(database))
        #expect(renewed.epoch != epoch)
        #expect(StoredSnapshot(renewed) == before, "the state itself is the backup's")
        let newEpoch = renewed.epoch
        await renewed.close()
        let again = try await ChatServer(clock: clock, configuration: configuration, opening: .database(database))
        #expect(again.epoch == newEpoch)
        await again.close()
    }

    @Test func pagingBackReadsOlderMessagesFromTheDatabase() async throws {
        let database = MemoryDatabase()
        let configuration = ServerConfiguration(messagesPerChannel: 5)
        var server = try await ChatServer(configuration: configuration, opening: .database(database))
        try await server.createChannel(type: .community, channelId: "long", userIds: ["ann"])
        for number in 1...30 { try await server.sendMessage(as: "ann", channelId: "long", text: "m\(number)") }
        for restart in [false, true] {
            if restart {
                await server.close()
                server = try await ChatServer(configuration: configuration, opening: .database(database))
            }
            #expect(server.messages(channelId: "long").count == 5, "memory keeps five")
            var ann = TestDevice(server, "ann")
            try await ann.connect()
            let texts = try await ann.historyTexts(of: "long", limit: 8)
            #expect(texts == (1...30).map { "m\($0)" }, "restart: \(restart)")
        }
        await server.close()
    }

    /// History beyond memory is read outside the engine's lock: while one user's page waits for a
    /// slow database, another user's send is answered, and the page arrives once the database
    /// answers.
    @Test func aSlowHistoryReadDoesNotDelayAnotherUsersRequest() async throws {
        let database = MemoryDatabase()
        let server = try await ChatServer(
            configuration: ServerConfiguration(messagesPerChannel: 5), opening: .database(database))
        try await server.createChannel(type: .community, channelId: "long", userIds: ["ann"])
        try await server.createChannel(type: .community, channelId: "chat", userIds: ["bob"])
        for number in 1...30 { try await server.sendMessage(as: "ann", channelId: "long", text: "m\(number)") }
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        var bob = TestDevice(server, "bob")
        try await bob.connect()
        database.holdReads()
        let page = Task { [ann] in
            try await ann.send(
                .queryMessages(MessagePageQuery(channelId: "long", position: .before(sequence: 10), limit: 5)))
        }
        await database.waitForHeldRead()
        let answered = Task { [bob] in
            try await bob.send(.sendMessage(MessageDraft(channelId: "chat", text: "while ann waits")))
        }
        let bobFirst = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await answered.value) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return false
            }
            defer { group.cancelAll() }
            return await group.next()!
        }
        #expect(bobFirst, "bob's send waited for ann's read of the database")
        #expect(database.waitingReads == 1, "ann's read was still waiting when bob was answered")
        database.releaseReads()
        guard case .messages(let messages) = try await page.value else {
            Issue.record("not a page")
            return
        }
        #expect(messages.messages.map(\.text) == (5...9).map { "m\($0)" })
        #expect(messages.hasPrevious)
        await server.close()
    }

    /// One initializer opens every storage; the synchronous one refuses what opens
    /// asynchronously, naming the other; storages compare by what they name.
    @Test func oneInitializerOpensEveryStorage() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let file = try await ChatServer(opening: .sqlite(directory.file))
        try await file.createChannel(type: .community, channelId: "kept", userIds: ["ann"])
        await file.close()
        let reopened = try ChatServer(storage: .sqlite(directory.file))
        #expect(reopened.channel("kept") != nil)
        await reopened.close()
        #expect(try await ChatServer(opening: .inMemory).channel("kept") == nil)

        let database = MemoryDatabase()
        #expect(throws: ChatError.self) { _ = try ChatServer(storage: .database(database)) }
        let refusal = #expect(throws: ChatError.self) {
            _ = try ChatServer(storage: .cluster(MemoryChangeLog(), nodeId: "n"))
        }
        #expect("\(refusal.map { "\($0)" } ?? "")".contains("ChatServer(clock:configuration:opening:)"))
        let badNode = await thrownChatError {
            _ = try await ChatServer(opening: .cluster(MemoryChangeLog(), nodeId: ""))
        }
        guard case .invalidArgument(field: "nodeId", _)? = badNode else {
            Issue.record("a node id that is not an id: \(String(describing: badNode))")
            return
        }

        #expect(ServerStorage.database(database) == .database(database))
        #expect(ServerStorage.database(database) != .database(MemoryDatabase()))
        #expect(ServerStorage.sqlite(directory.file) == .sqlite(directory.file))
        #expect(ServerStorage.inMemory != .sqlite(directory.file))
        #expect(Set([ServerStorage.database(database), .database(database), .inMemory]).count == 2)
    }

    /// A read of history waits for the database at most its timeout, even when the database
    /// ignores cancellation: the caller is answered `nil` (unavailable) and the read's late answer
    /// is dropped.
    @Test func aReadThatNeverAnswersTimesOut() async throws {
        let database = MemoryDatabase()
        database.holdReads()
        let result = await TimeLimit.result(within: .milliseconds(50)) {
            try await database.messages(in: [ServerRow.MessageRange(channelId: "c", sequences: 1...2)])
        }
        #expect(result == nil)
        #expect(database.waitingReads == 1, "the read is still held by the database")
        database.releaseReads()
        let answered = await TimeLimit.result(within: .seconds(10)) { 42 }
        #expect(try answered?.get() == 42)
    }

    /// A read that answers well within its timeout is answered with what it read, every time:
    /// stopping the timer once the read has answered never answers "did not answer" in its place
    /// (the two raced once, and a restarted server's history reads failed at random).
    @Test func aReadThatAnswersInTimeIsAnsweredEveryTime() async throws {
        let database = MemoryDatabase()
        // Each read answers from a thread of its own, as a database's connection does.
        var timedOut = 0
        for attempt in 0..<1_000 {
            let result = await TimeLimit.result(within: .seconds(10)) {
                _ = try await database.messages(in: [ServerRow.MessageRange(channelId: "c", sequences: 1...2)])
                return await withCheckedContinuation { continuation in
                    DispatchQueue.global().async { continuation.resume(returning: attempt) }
                }
            }
            if (try? result?.get()) != attempt { timedOut += 1 }
        }
        #expect(timedOut == 0, "reads answered nil or another answer: \(timedOut) of 1,000")
    }

    @Test func concurrentCallsShareCommits() async throws {
        let database = MemoryDatabase()
        let server = try await ChatServer(opening: .database(database))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        let before = database.commits
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for number in 0..<200 {
                group.addTask {
                    try await server.sendMessage(as: "ann", channelId: "room", text: "\(number)").messageId
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        let commits = database.commits - before
        #expect(commits < 200, "\(commits) commits for 200 concurrent sends")
        await server.close()
        let reopened = try await ChatServer(
            configuration: ServerConfiguration(messagesPerChannel: 1_000), opening: .database(database))
        #expect(Set(reopened.messages(channelId: "room").map(\.messageId)) == Set(ids))
        await reopened.close()
    }

    /// The database fails: the call whose change could not be committed fails with
    /// `unavailable` and is not acknowledged; the server goes on, and once the database is back
    /// the next commit writes what was pending. Every acknowledged change is there after a
    /// restart.
    @Test func aFailedCommitFailsTheCallsItCoveredAndIsWrittenLater() async throws {
        let database = MemoryDatabase()
        let server = try await ChatServer(opening: .database(database))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        let first = try await server.sendMessage(as: "ann", channelId: "room", text: "before")
        database.setFailing(true)
        let error = await thrownChatError {
            _ = try await server.sendMessage(as: "ann", channelId: "room", text: "during")
        }
        guard case .unavailable(let reason)? = error else {
            Issue.record("not unavailable: \(String(describing: error))")
            return
        }
        #expect(reason.contains("unreachable"), "\(reason)")
        #expect(!server.isStorageHealthy)
        database.setFailing(false)
        let later = try await server.sendMessage(as: "ann", channelId: "room", text: "after")
        #expect(server.isStorageHealthy)
        await server.close()
        let reopened = try await ChatServer(opening: .database(database))
        let texts = reopened.messages(channelId: "room").map(\.text)
        #expect(texts.contains(first.text) && texts.contains(later.text), "\(texts)")
        await reopened.close()
    }

    @Test func aDatabaseThatCannotBeOpenedOrReadIsRefusedByName() async throws {
        let unreachable = MemoryDatabase()
        unreachable.setFailing(true)
        let error = await thrownChatError { _ = try await ChatServer(opening: .database(unreachable)) }
        #expect(error?.kind == "unavailable")
        #expect(error.map { "\($0)" }?.contains("cannot be opened") == true)

        let database = MemoryDatabase()
        let server = try await ChatServer(opening: .database(database))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        await server.close()
        database.damageChannel("room")
        let damaged = await thrownChatError { _ = try await ChatServer(opening: .database(database)) }
        #expect(damaged?.kind == "unavailable")
        #expect(damaged.map { "\($0)" }?.contains("channel 'room'") == true, "\(String(describing: damaged))")
    }

    /// A message missing between a channel's oldest kept and its last, or one that does not
    /// decode, refuses the start by name.
    @Test func aMissingOrDamagedMessageIsRefusedByName() async throws {
        for damaging in [false, true] {
            let database = MemoryDatabase()
            let server = try await ChatServer(opening: .database(database))
            for number in 0..<30 {
                try await server.createChannel(type: .community, channelId: "room\(number)", userIds: ["ann"])
                for text in ["a", "b", "c"] {
                    try await server.sendMessage(as: "ann", channelId: "room\(number)", text: text)
                }
            }
            await server.close()
            database.removeMessage(channelId: "room17", sequence: 2, damaging: damaging)
            let error = await thrownChatError { _ = try await ChatServer(opening: .database(database)) }
            #expect(error?.kind == "unavailable")
            let expected = damaging ? "message 2 of channel 'room17'" : "channel 'room17' lacks message 2"
            #expect(error.map { "\($0)" }?.contains(expected) == true, "\(String(describing: error))")
        }
    }
}
