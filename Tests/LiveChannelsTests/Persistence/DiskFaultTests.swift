import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import SQLiteSupport
import TestSupport
import Testing

/// Problems with the cache file are told, never hidden, never reported as the network's
/// `.unavailable`, and never alter a file that is not ours or lose what the client had.
@Suite(.timeLimit(.minutes(2))) struct DiskFaultTests {
    let server = ChatServer()
    let directory = TemporaryDirectory()

    @Test func anotherApplicationsDatabaseIsLeftByteForByte() async throws {
        let file = directory.file("app.sqlite")
        do {
            let connection = try SQLiteConnection(path: file.path)
            try connection.execute("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('keep me')")
        }
        let bytes = try Data(contentsOf: file)
        let client = server.persistentClient("alice", file: file)
        let error = await #expect(throws: ChatError.self) { try await client.connect() }
        guard case .invalidArgument(field: "persistence", let reason)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(reason.contains(file.path))
        #expect(client.persistenceError != nil)
        await client.close()
        // Not even its journal mode: the header is as it was, and no journal of ours was made.
        #expect(try Data(contentsOf: file) == bytes)
        for suffix in ["-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: file.path + suffix), "\(suffix) left behind")
        }
    }

    @Test func aReadOnlyFileIsReportedNamingItNotAsTheNetwork() async throws {
        let file = directory.file()
        do {
            let client = server.persistentClient("alice", file: file)
            try await client.connect()
            try await createChannels(["a"], client: client)
            await client.close()
        }
        let bytes = try Data(contentsOf: file)
        guard ReadOnlyFile.protect(file) else {
            print(
                "aReadOnlyFileIsReportedNamingItNotAsTheNetwork: this machine cannot make a file read-only for this user; not run"
            )
            return
        }
        defer { ReadOnlyFile.release(file) }
        let client = server.persistentClient("alice", file: file)
        let error = await #expect(throws: ChatError.self) { try await client.connect() }
        guard case .invalidArgument(field: "persistence", let reason)? = error else {
            Issue.record("a read-only file reported as \(String(describing: error))")
            return
        }
        #expect(reason.contains(file.path) && reason.contains("read-only"))
        await client.close()
        #expect(try Data(contentsOf: file) == bytes)
    }

    /// A full disk: the failed write is told (`persistenceError`), the file keeps a state the
    /// client had (never a mix), and once there is room again nothing is lost.
    @Test func aFullDiskIsToldAndLosesNothingOnceThereIsRoom() async throws {
        let file = directory.file()
        try await server.registerUser(id: "bob")
        let client = server.persistentClient("alice", file: file)
        try await client.connect()
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        for index in 1...5 { try await server.sendMessage(as: "bob", channelId: "room", text: "early \(index)") }
        await client.synchronize()
        await client.flushPersistence()
        #expect(client.persistenceError == nil)

        // The disk fills: messages keep arriving; the writes fail and say so.
        let store = try #require(client.store)
        await store.limitFileSize(toPages: await store.pageCount())
        let text = String(repeating: "x", count: 3_000)
        for _ in 1...40 { try await server.sendMessage(as: "bob", channelId: "room", text: text) }
        await client.synchronize()
        await client.flushPersistence()
        guard case .limitExceeded(let reason)? = client.persistenceError else {
            Issue.record("a full disk told as \(String(describing: client.persistenceError))")
            return
        }
        #expect(reason.contains(file.path))
        #expect(ChannelRepository(client: client).totalUnreadCount == 45)  // the client itself goes on

        // Room again: the next write holds everything the failed ones held.
        await store.limitFileSize(toPages: 1_000_000)
        try await server.sendMessage(as: "bob", channelId: "room", text: "after")
        await client.synchronize()
        await client.flushPersistence()
        #expect(client.persistenceError == nil)
        await client.close()

        let reopened = server.persistentClient("alice", file: file)
        let channel = try #require(await reopened.cachedChannels().first { $0.channelId == "room" })
        #expect(channel.unreadCount == 46)
        #expect(await reopened.cachedMessages(in: "room").count == 46)
        await reopened.close()
    }

    /// While the disk stays full, what the file shows on the next start is a state the client
    /// had: the channel's unread count and its stored messages agree.
    @Test func whileTheDiskStaysFullTheFileHoldsAPrefix() async throws {
        let file = directory.file()
        try await server.registerUser(id: "bob")
        let client = server.persistentClient("alice", file: file)
        try await client.connect()
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        for index in 1...5 { try await server.sendMessage(as: "bob", channelId: "room", text: "early \(index)") }
        await client.synchronize()
        await client.flushPersistence()
        let store = try #require(client.store)
        await store.limitFileSize(toPages: await store.pageCount())
        for index in 1...40 {
            try await server.sendMessage(
                as: "bob", channelId: "room", text: "\(index) " + String(repeating: "y", count: 2_000))
        }
        await client.synchronize()
        await client.close()

        let reopened = server.persistentClient("alice", file: file)
        let channel = try #require(await reopened.cachedChannels().first { $0.channelId == "room" })
        let messages = await reopened.cachedMessages(in: "room")
        #expect(
            channel.unreadCount == messages.count, "unread \(channel.unreadCount), \(messages.count) messages stored")
        #expect(channel.lastSequence == messages.last?.sequence)
        #expect(messages.count >= 5 && messages.count < 45)
        await reopened.close()
    }
}
