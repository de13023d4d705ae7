import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import Testing
import SQLiteSupport

/// What happens with a file that is not a usable cache, or already in use; clearing; eviction.
@Suite(.timeLimit(.minutes(1))) struct CacheFileTests {
    /// Whether `error` is `ChatError.invalidArgument` on the persistence field.
    static func isPersistenceArgumentError(_ error: any Error) -> Bool {
        if case .invalidArgument(field: "persistence", _) = error as? ChatError { return true }
        return false
    }

    @Test func aFileThatIsNotADatabaseIsReportedAndLeftAlone() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file("notes.txt")
        let bytes = Data(String(repeating: "these are my notes, not a cache. ", count: 200).utf8)
        try bytes.write(to: file)
        let client = ChatServer().persistentClient("alice", file: file)
        let error = await #expect(throws: ChatError.self) { try await client.connect() }
        #expect(error.map(Self.isPersistenceArgumentError) == true)
        #expect("\(error!)".contains("not a LiveChannels cache"))
        await #expect(throws: ChatError.self) { try await client.clearPersistence() }
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test func anotherApplicationsDatabaseIsReportedAndLeftAlone() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file("app.sqlite")
        do {
            let connection = try SQLiteConnection(path: file.path)
            try connection.execute("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('keep me')")
        }
        let client = ChatServer().persistentClient("alice", file: file)
        let error = await #expect(throws: ChatError.self) { try await client.connect() }
        #expect(error.map(Self.isPersistenceArgumentError) == true)
        let connection = try SQLiteConnection(path: file.path)
        #expect(try connection.integer("SELECT count(*) FROM notes") == 1)
    }

    @Test func aDamagedCacheIsRebuiltEmptyAndStoresAgain() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        do {
            let alice = server.persistentClient("alice", file: file)
            try await alice.connect()
            try await createChannels((0..<40).map { "c\($0)" }, client: alice)
            _ = await ChannelRepository(client: alice).getChannels(query: joinedQuery).loaded()
            await alice.closePersistence()
        }
        // Scribble over everything after the first page (the header and schema stay).
        let handle = try FileHandle(forWritingTo: file)
        let size = try handle.seekToEnd()
        #expect(size > 8_192)
        try handle.seek(toOffset: 4_096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4_096))
        try handle.close()

        let alice = server.persistentClient("alice", file: file)
        #expect(alice.store?.failure == nil)
        try await alice.connect()
        await alice.synchronize()
        #expect(await alice.store?.integrityCheck() == "ok")
        try await createChannels(["after"], client: alice)
        await alice.closePersistence()

        let again = server.persistentClient("alice", file: file)
        #expect(await again.cachedChannels().map(\.channelId).contains("after"))
        await again.closePersistence()
    }

    @Test func aSecondClientOnTheSameFileIsRefused() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        let first = server.persistentClient("alice", file: file)
        try await first.connect()
        try await createChannels(["mine"], client: first)
        await first.flushPersistence()

        let second = server.persistentClient("alice", deviceId: "tablet", file: file)
        let error = await #expect(throws: ChatError.self) { try await second.connect() }
        #expect(error.map(Self.isPersistenceArgumentError) == true)
        #expect("\(error!)".contains("open in another client"))

        // The first goes on storing, and the file is sound.
        try await createChannels(["more"], client: first)
        await first.flushPersistence()
        #expect(await first.store?.integrityCheck() == "ok")
        await first.closePersistence()
        let third = server.persistentClient("alice", file: file)
        #expect(await third.cachedChannels().map(\.channelId) == ["mine", "more"])
        await third.closePersistence()
    }

    @Test func clearPersistenceDeletesEveryRow() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        do {
            let alice = server.persistentClient("alice", file: file)
            try await alice.connect()
            try await createChannels(["a", "b"], client: alice)
            _ = try await MessageRepository(client: alice).sendMessage(channelId: "a", text: "hi", mentionedUserIds: [])
            _ = await ChannelRepository(client: alice).getChannels(query: joinedQuery).loaded()
            await alice.flushPersistence()
            #expect(await alice.store!.storedBytes() > 0)
            try await alice.clearPersistence()
            #expect(await alice.store!.storedBytes() == 0)
            await alice.closePersistence()
        }
        let alice = server.persistentClient("alice", file: file)
        let list = ChannelRepository(client: alice).getChannels(query: joinedQuery)
        #expect(list.snapshots.isEmpty)
        #expect(list.dataStatus != .local)
        #expect(await alice.cachedChannels().isEmpty)
        #expect(await alice.cachedMessages(in: "a").isEmpty)
        #expect(await alice.sync.restoredSequence == nil)
        await alice.closePersistence()
    }

    @Test func messagesPerChannelAndTotalSizeAreCapped() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        let limits = PersistenceLimits(messagesPerChannel: 5, totalBytes: 3_000)
        do {
            let alice = server.persistentClient("alice", file: file, limits: limits)
            try await alice.connect()
            try await createChannels(["a", "b"], client: alice)
            let messages = MessageRepository(client: alice)
            for index in 1...12 {
                _ = try await messages.sendMessage(channelId: "a", text: "message \(index)", mentionedUserIds: [])
            }
            await alice.flushPersistence()
            let kept = await alice.store!.storedValues(Message.self).map(\.sequence).sorted()
            #expect(kept == [8, 9, 10, 11, 12])
            #expect(await alice.store!.storedBytes() <= limits.totalBytes)
            // Bulky channels the user is not a member of push the file over its size.
            let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "laptop"))
            try await bob.connect()
            try await createChannels((0..<60).map { "bob\($0)" }, client: bob)
            let all = ChannelListQuery(filter: .equal(.type, to: .community), pageSize: 100)
            _ = await ChannelRepository(client: alice).getChannels(query: all).loaded()
            await alice.flushPersistence()
            #expect(await alice.store!.storedBytes() <= limits.totalBytes)
            await alice.closePersistence()
        }
        let alice = server.persistentClient("alice", file: file, limits: limits)
        let channels = await alice.cachedChannels().map(\.channelId)
        // Channels the user is a member of are never evicted.
        #expect(channels.contains("a") && channels.contains("b"))
        #expect(channels.count < 62)
        // Messages go first; what is left of a channel's is its newest.
        let stored = await alice.cachedMessages(in: "a").map(\.sequence)
        #expect(stored.count <= 5)
        #expect(stored.isEmpty || stored == Array((13 - stored.count)...12))
        await alice.closePersistence()
    }
}
