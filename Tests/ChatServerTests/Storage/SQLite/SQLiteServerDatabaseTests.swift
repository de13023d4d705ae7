import ChatAPI
import Foundation
import Testing
import SQLiteSupport
import TestSupport

@_spi(Testing) @testable import ChatServer

@Suite struct SQLiteServerDatabaseTests {
    /// Seeded runs of every kind of change: after a restart the stored state is exactly what
    /// the server had, indexes and counters included.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func aRestartRestoresEverythingStored(seed: UInt64) async throws {
        let seed = SeededGenerator.testSeed(seed)
        let directory = StoreDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let configuration = ServerConfiguration(messagesPerChannel: 3)
        let server = try ChatServer(clock: clock, configuration: configuration, storage: .sqlite(directory.file))
        var workload = StorageWorkload(seed: seed)
        try await workload.run(1_000, on: server, clock: clock)
        let before = StoredSnapshot(server)
        await server.close()

        let reopened = try ChatServer(clock: clock, configuration: configuration, storage: .sqlite(directory.file))
        let after = StoredSnapshot(reopened)
        #expect(after.users == before.users, "seed \(seed)")
        #expect(after.channels == before.channels, "seed \(seed)")
        #expect(after.members == before.members, "seed \(seed)")
        #expect(after.extras == before.extras, "seed \(seed)")
        #expect(after.messages == before.messages, "seed \(seed)")
        #expect(after.conversations == before.conversations, "seed \(seed)")
        #expect(after.memberships == before.memberships, "seed \(seed)")
        #expect(after.channelsByType == before.channelsByType, "seed \(seed)")
        #expect(after.channelsByTag == before.channelsByTag, "seed \(seed)")
        #expect(after.messageLocations == before.messageLocations, "seed \(seed)")
        #expect(after.timedChannels == before.timedChannels, "seed \(seed)")
        #expect(after.counters.revision == before.counters.revision, "seed \(seed)")
        #expect(before.channels.values.contains { $0.messageCount > 3 }, "the run pages past the kept messages")
        await reopened.close()
    }

    @Test func numberingContinuesAfterARestart() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        let first = try await server.createChannel(type: .community, userIds: ["ann"])
        let sent = try await server.sendMessage(as: "ann", channelId: first.channelId, text: "one")
        let revision = server.engine.core.withLock { $0.state.revision }
        await server.close()

        let reopened = try ChatServer(storage: .sqlite(directory.file))
        let second = try await reopened.createChannel(type: .community, userIds: ["ann"])
        let next = try await reopened.sendMessage(as: "ann", channelId: first.channelId, text: "two")
        #expect(second.channelId != first.channelId)
        #expect(next.sequence == sent.sequence + 1)
        #expect(next.messageId != sent.messageId)
        #expect(next.version > revision, "versions keep ordering values across the restart")
        #expect(reopened.user("ann")?.isOnline == false)
        await reopened.close()
    }

    @Test func deletedChannelsAndEditedMessagesComeBack() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        let channel = try await server.createChannel(type: .community, channelId: "gone", userIds: ["ann", "ben"])
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        let message = try await server.sendMessage(as: "ann", channelId: "gone", text: "first")
        try await ann.send(
            .editMessage(messageId: message.messageId, draft: MessageDraft(channelId: "gone", text: "fixed")))
        let other = try await server.sendMessage(as: "ann", channelId: "gone", text: "second")
        try await ann.send(.deleteMessage(channelId: "gone", messageId: other.messageId))
        try await server.deleteChannel(channel.channelId)
        await server.close()

        let reopened = try ChatServer(storage: .sqlite(directory.file))
        #expect(reopened.channel("gone")?.isDeleted == true)
        let messages = reopened.messages(channelId: "gone")
        #expect(messages.map(\.text) == ["fixed", ""])
        #expect(messages.map(\.isDeleted) == [false, true])
        #expect(messages[0].editedAt != nil)
        await reopened.close()
    }

    /// History is unlimited: a page reaching past the messages kept in memory comes from the
    /// file, before and after a restart, down to message 1.
    @Test func pagingBackReadsOlderMessagesFromDisk() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let configuration = ServerConfiguration(messagesPerChannel: 5)
        var server = try ChatServer(configuration: configuration, storage: .sqlite(directory.file))
        try await server.createChannel(type: .community, channelId: "long", userIds: ["ann"])
        for number in 1...30 { try await server.sendMessage(as: "ann", channelId: "long", text: "m\(number)") }
        for restart in [false, true] {
            if restart {
                await server.close()
                server = try ChatServer(configuration: configuration, storage: .sqlite(directory.file))
            }
            #expect(server.messages(channelId: "long").count == 5, "memory keeps five")
            var ann = TestDevice(server, "ann")
            try await ann.connect()
            let texts = try await ann.historyTexts(of: "long", limit: 8)
            #expect(texts == (1...30).map { "m\($0)" }, "restart: \(restart)")
            guard
                case .messages(let after) = try await ann.send(
                    .queryMessages(MessagePageQuery(channelId: "long", position: .after(sequence: 2), limit: 3)))
            else { Issue.record("not a page"); return }
            #expect(after.messages.map(\.sequence) == [3, 4, 5])
        }
        await server.close()
    }

    /// A device that resumes across a restart is told to resync: its replay log is gone, and
    /// the restarted server numbers events above every number it gave before.
    @Test func aDeviceResumingAcrossARestartIsToldToResync() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann", "ben"])
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        try await server.sendMessage(as: "ben", channelId: "room", text: "hi")
        let seen = await ann.drain().last!.sequence
        await server.close()

        let reopened = try ChatServer(storage: .sqlite(directory.file))
        var again = TestDevice(reopened, "ann")
        for resume in [seen, 0] {
            let result = try await again.connect(resumingAfter: resume)
            #expect(result.status == .resyncRequired, "after \(resume)")
            #expect(result.lastSequence > seen)
        }
        var tablet = TestDevice(reopened, "ben", "tablet")
        let fresh = try await tablet.connect()
        #expect(fresh.status == .new)
        await reopened.close()
    }

    @Test func afterCloseEveryChangeIsRefusedAndCloseIsIdempotent() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        await server.close()
        await server.close()
        await #expect(throws: ChatError.self) {
            try await server.sendMessage(as: "ann", channelId: "room", text: "late")
        }
        await #expect(throws: ChatError.self) { try await ann.send(.getChannel(channelId: "room")) }
        var ben = TestDevice(server, "ben")
        await #expect(throws: ChatError.self) { try await ben.connect() }
        #expect(server.channel("room") != nil, "inspection still reads memory")
        // The file is released: another server opens it.
        let reopened = try ChatServer(storage: .sqlite(directory.file))
        #expect(reopened.channel("room") != nil)
        await reopened.close()
    }

    @Test func aSecondServerOnTheSameFileIsRefused() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        #expect(
            throws: ChatError.invalidArgument(
                field: "storage", reason: "'\(directory.file.path)' is in use by another server")
        ) {
            _ = try ChatServer(storage: .sqlite(directory.file))
        }
        await server.close()
    }

    /// Files that are not server stores of ours are refused with a clear error and left
    /// untouched byte for byte (no journal mode change, no side files).
    @Test func foreignFilesAreRefusedAndLeftUntouched() throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        var generator = SeededGenerator(seed: SeededGenerator.testSeed(7))
        let random = directory.url.appendingPathComponent("random.bin")
        try Data((0..<5_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
        let other = directory.url.appendingPathComponent("other.sqlite")
        let cache = directory.url.appendingPathComponent("cache.sqlite")
        try makeSQLiteFile(at: other, sql: "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('keep me');")
        try makeSQLiteFile(
            at: cache, sql: "PRAGMA application_id = 1279477832; PRAGMA user_version = 2; CREATE TABLE meta(key TEXT);")
        for file in [random, other, cache] {
            let bytes = try Data(contentsOf: file)
            #expect {
                _ = try ChatServer(storage: .sqlite(file))
            } throws: { error in
                guard case ChatError.invalidArgument(field: "storage", let reason) = error else { return false }
                return reason.contains("is not a LiveChannels server store") && reason.contains("left untouched")
            }
            #expect(try Data(contentsOf: file) == bytes, "\(file.lastPathComponent) unchanged")
            for suffix in ["-wal", "-shm", "-journal"] {
                #expect(
                    !FileManager.default.fileExists(atPath: file.path + suffix), "\(file.lastPathComponent)\(suffix)")
            }
        }
    }

    @Test func aStoreOfANewerVersionIsRefused() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        await server.close()
        try makeSQLiteFile(at: directory.file, sql: "PRAGMA user_version = 99;")
        let bytes = try Data(contentsOf: directory.file)
        #expect {
            _ = try ChatServer(storage: .sqlite(directory.file))
        } throws: { error in
            guard case ChatError.invalidArgument(field: "storage", let reason) = error else { return false }
            return reason.contains("newer version")
        }
        #expect(try Data(contentsOf: directory.file) == bytes)
    }

    /// A store on a file that cannot be written (read-only) is refused at `init` with an error
    /// naming the file, and the file is left as it was.
    @Test func aReadOnlyStoreIsRefusedWithAClearError() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        await server.close()
        let bytes = try Data(contentsOf: directory.file)
        guard ReadOnlyFile.protect(directory.file) else {
            print(
                "aReadOnlyStoreIsRefusedWithAClearError: this machine cannot make a file read-only for this user; not run"
            )
            return
        }
        defer { ReadOnlyFile.release(directory.file) }
        #expect {
            _ = try ChatServer(storage: .sqlite(directory.file))
        } throws: { error in
            guard case ChatError.unavailable(let reason) = error else { return false }
            return reason.contains(directory.file.path) && reason.contains("readonly")
        }
        #expect(try Data(contentsOf: directory.file) == bytes)
    }

    /// A full disk: the call whose change could not be written fails with a clear error and
    /// is not acknowledged; the server goes on, and once there is room again the next commit
    /// writes what was pending. Every acknowledged change is in the file.
    @Test func aFullDiskFailsTheCallThatCouldNotBeWritten() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        let store = (server.engine.store as! DatabaseServerStore).database as! SQLiteServerDatabase
        try store.limitFileSize(toPages: store.pageCount())
        var acknowledged: [String] = []
        var failure: ChatError?
        for number in 0..<2_000 {
            do {
                let message = try await server.sendMessage(
                    as: "ann", channelId: "room", text: String(repeating: "x", count: 500) + "\(number)")
                acknowledged.append(message.messageId)
            } catch let error as ChatError {
                failure = error
                break
            }
        }
        guard case .unavailable(let reason)? = failure else {
            Issue.record("no failure: \(String(describing: failure))")
            return
        }
        #expect(reason.contains(directory.file.path) && reason.contains("full"), "\(reason)")
        #expect(!server.isStorageHealthy, "a health check reports it")
        try store.limitFileSize(toPages: 1_000_000)
        let later = try await server.sendMessage(as: "ann", channelId: "room", text: "room again")
        #expect(server.isStorageHealthy)
        acknowledged.append(later.messageId)
        await server.close()

        let reopened = try ChatServer(
            configuration: ServerConfiguration(messagesPerChannel: 10_000), storage: .sqlite(directory.file))
        let stored = Set(reopened.messages(channelId: "room").map(\.messageId))
        #expect(Set(acknowledged).isSubset(of: stored))
        await reopened.close()
    }

    @Test func concurrentCallsShareCommits() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for number in 0..<200 {
                group.addTask {
                    try await server.sendMessage(as: "ann", channelId: "room", text: "\(number)").messageId
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        let commits = (server.engine.store as! DatabaseServerStore).commitCount
        #expect(commits < 200, "\(commits) commits for 200 concurrent sends")
        await server.close()
        let reopened = try ChatServer(storage: .sqlite(directory.file))
        #expect(Set(reopened.messages(channelId: "room").map(\.messageId)) == Set(ids))
        await reopened.close()
    }

    /// Another program's SQLite file (rollback journal, its own schema).
    private func makeSQLiteFile(at url: URL, sql: String) throws {
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute(sql)
    }
}
