import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import Testing
import SQLiteSupport

/// Files of other schema versions: an older one is migrated, a newer one rebuilt; a row that
/// does not decode rebuilds the file.
@Suite(.timeLimit(.minutes(1))) struct CacheSchemaTests {
    /// Writes a cache file of schema version 1 as that build did: values as JSON, a list, an
    /// event sequence.
    private func writeVersion1File(at file: URL) throws {
        let connection = try SQLiteConnection(path: file.path)
        try connection.execute("PRAGMA application_id = \(CacheSchema.applicationId)")
        try connection.execute(CacheSchema.migrations[1]!)
        try connection.execute("PRAGMA user_version = 1")
        var channel = Channel(channelId: "old", type: .community, displayName: "OLD", currentUserMembership: .member)
        channel.version = 3
        let value = try JSONEncoder().encode(channel)
        try connection.statement(
            "INSERT INTO channels(key, version, scope, ordinal, pinned, size, value) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"
        )
        .run(["old", 3, "", 0, 1, value.count, value])
        try connection.statement("INSERT INTO lists(key, kind, touched, keys) VALUES(?1, 'channels', 1, ?2)")
            .run(["joined", try JSONEncoder().encode(["old"])])
        try connection.execute("INSERT INTO meta(key, value) VALUES('sequence', 7)")
    }

    /// The file's `PRAGMA user_version` and its count of stored channels.
    private func versionAndChannels(of file: URL) throws -> (version: Int, channels: Int) {
        let connection = try SQLiteConnection(path: file.path)
        return (try connection.integer("PRAGMA user_version"), try connection.integer("SELECT count(*) FROM channels"))
    }

    @Test func aVersion1FileIsMigratedWithoutItsRows() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        try writeVersion1File(at: file)
        let server = ChatServer()
        do {
            let alice = server.persistentClient("alice", file: file)
            #expect(alice.store?.failure == nil)
            #expect(await alice.cachedChannels().isEmpty)
            #expect(await alice.sync.restoredSequence == nil)  // connects afresh
            #expect(await alice.store?.storedBytes() == 0)
            #expect(await alice.store?.integrityCheck() == "ok")
            // It stores again, in the new encoding.
            try await alice.connect()
            try await createChannels(["new"], client: alice)
            _ = await ChannelRepository(client: alice).getChannels(query: joinedQuery).loaded()
            await alice.closePersistence()
        }
        #expect(try versionAndChannels(of: file) == (CacheSchema.version, 1))
        let again = server.persistentClient("alice", file: file)
        let list = ChannelRepository(client: again).getChannels(query: joinedQuery)
        #expect(list.dataStatus == .local)
        #expect(list.snapshots.map(\.channelId) == ["new"])
        #expect(await again.sync.restoredSequence != nil)
        await again.closePersistence()
    }

    @Test func aFileOfANewerSchemaIsRebuiltEmpty() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        try writeVersion1File(at: file)
        try SQLiteConnection(path: file.path).execute("PRAGMA user_version = \(CacheSchema.version + 1)")
        let alice = ChatServer().persistentClient("alice", file: file)
        #expect(alice.store?.failure == nil)
        #expect(await alice.cachedChannels().isEmpty)
        #expect(await alice.sync.restoredSequence == nil)
        await alice.closePersistence()
        #expect(try versionAndChannels(of: file) == (CacheSchema.version, 0))
    }

    @Test func aRowThatDoesNotDecodeRebuildsTheFile() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        try await storeChannels(["a", "b"], on: server, in: file)
        // A row cut short (a channel row's first bytes), as a damaged disk might leave it.
        try SQLiteConnection(path: file.path).execute("UPDATE channels SET value = substr(value, 1, 5) WHERE key = 'b'")
        let alice = server.persistentClient("alice", file: file)
        #expect(alice.store?.failure == nil)
        await alice.sync.restoration.wait()
        #expect(alice.store?.isIntact == false)
        #expect(await alice.sync.restoredSequence == nil)
        #expect(await alice.store?.integrityCheck() == "ok")
        await alice.closePersistence()
        #expect(try versionAndChannels(of: file) == (CacheSchema.version, 0))
    }
}
