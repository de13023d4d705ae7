import ChatAPI
import Foundation
import RowCoding
import SQLiteSupport
import Testing

@testable import ChatServer

/// A stored state never stops the server: values an older version accepted (a mute of 1e11 s,
/// which armed a wake-up that trapped at every start) load and work; a record that cannot be
/// loaded makes the server refuse to start, naming the file and the record, with the file left
/// as it was.
@Suite struct StoredStateLoadingTests {
    /// A store with channel "c" (alice moderates, bob is a member), closed.
    private func makeStore(in directory: StoreDirectory) async throws {
        let server = try ChatServer(storage: .sqlite(directory.file))
        _ = try await server.registerUser(id: "bob")
        var alice = TestDevice(server, "alice")
        _ = try await alice.connect()
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        _ = try await alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: 60))
        await server.close()
    }

    /// Rewrites the moderation state of channel `channelId` in the file.
    private func rewriteExtras(of channelId: String, in file: URL, _ change: (inout ChannelExtras) -> Void) throws {
        let connection = try SQLiteConnection(path: file.path)
        var extras: ChannelExtras?
        try connection.statement("SELECT extras FROM channels WHERE id = ?1").query([channelId]) { row in
            extras = try row.withBlob(at: 0) { try ChannelExtras.decodeRow($0) }
        }
        change(&extras!)
        var writer = RowWriter()
        try extras!.encodeRow(to: &writer)
        try connection.statement("UPDATE channels SET extras = ?1 WHERE id = ?2").run([writer.bytes, channelId])
    }

    @Test func mutesOfOlderVersionsBeyondTodaysLimitsLoadAndTheServerRuns() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        try await makeStore(in: directory)
        // What the request left in the file before periods had a maximum.
        try rewriteExtras(of: "c", in: directory.file) { extras in
            extras.mutedUntil = Date(timeIntervalSinceNow: 1e11)
            extras.mutes["bob"] = Date(timeIntervalSinceNow: 99_999_999_999)
            extras.rateLimit = RateLimitPolicy(limit: 3, window: 10, until: Date(timeIntervalSinceNow: 1e15))
        }
        for _ in 0..<2 {  // a restart, and another from what the first one wrote
            let server = try ChatServer(storage: .sqlite(directory.file))  // the system clock: the timer is armed
            #expect(server.members(channelId: "c").first { $0.userId == "bob" }?.mutedUntil != nil)
            var alice = TestDevice(server, "alice")
            _ = try await alice.connect()
            _ = try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "moderators may send")))
            try await Task.sleep(for: .milliseconds(50))  // the wake-up task runs
            _ = try await alice.send(.getChannel(channelId: "c"))
            await server.close()
        }
    }

    @Test func aRecordThatCannotBeLoadedIsNamedAndTheFileLeftAsItWas() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        try await makeStore(in: directory)
        // A rate limit no version accepts (a limit of 0 messages).
        try rewriteExtras(of: "c", in: directory.file) { extras in
            extras.rateLimit = RateLimitPolicy(limit: 0, window: 10, until: .distantFuture)
        }
        let before = try Data(contentsOf: directory.file)
        let error = await thrownChatError { _ = try ChatServer(storage: .sqlite(directory.file)) }
        let message = error.map { "\($0)" } ?? ""
        #expect(error?.kind == "unavailable")
        #expect(message.contains(directory.file.path), "\(message)")
        #expect(message.contains("channel 'c'"), "\(message)")
        #expect(try Data(contentsOf: directory.file) == before)
    }

    @Test func aDateThatIsNotFiniteIsRefusedNamingItsRecord() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        try await makeStore(in: directory)
        try rewriteExtras(of: "c", in: directory.file) { extras in
            extras.mutes["bob"] = Date(timeIntervalSinceReferenceDate: .infinity)
        }
        let error = await thrownChatError { _ = try ChatServer(storage: .sqlite(directory.file)) }
        #expect(error?.kind == "unavailable")
        #expect(error.map { "\($0)" }?.contains("the moderation state of channel 'c'") == true)
    }
}
