import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import Testing
import SQLiteSupport

/// The stored size in `meta` stays the sum of the rows' sizes through inserts, updates that
/// change a row's size (counted by ``StoredSizeChange``, not a trigger) and deletes.
@Suite(.timeLimit(.minutes(1))) struct StoredSizeChangeTests {
    /// The file's stored size and the actual size of its values, with the file closed.
    private func storedAndActualBytes(of file: URL) throws -> (stored: Int, actual: Int) {
        let connection = try SQLiteConnection(path: file.path)
        let actual = try StoredKind.allCases.reduce(0) { sum, kind in
            sum + (try connection.integer("SELECT coalesce(sum(length(value)), 0) FROM \(kind.table)"))
        }
        return (try connection.integer("SELECT value FROM meta WHERE key = 'bytes'"), actual)
    }

    @Test func theStoredSizeFollowsUpdatesThatResizeRows() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let server = ChatServer()
        try await storeChannels(["a", "b", "c"], on: server, in: file)
        let inserted = try storedAndActualBytes(of: file)
        #expect(inserted.stored == inserted.actual)
        #expect(inserted.stored > 0)

        let alice = server.persistentClient("alice", file: file)
        try await alice.connect()
        let repository = ChannelRepository(client: alice)
        for (channelId, name) in [("a", "a much longer display name than before"), ("b", "B")] {
            let update = ChannelUpdateBuilder(channelId: channelId, client: alice)
            update.setDisplayName(name)
            _ = try await repository.updateChannel(with: update)
        }
        try await repository.leaveChannel("c")
        await alice.synchronize()
        await alice.closePersistence()
        let updated = try storedAndActualBytes(of: file)
        #expect(updated.stored == updated.actual)
        #expect(updated.stored != inserted.stored)
    }
}
