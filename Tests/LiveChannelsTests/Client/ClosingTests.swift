import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import Testing

/// `client.close()` and freeing the last reference: the cache is written and its file released
/// before the call (or the release) returns; a closed client refuses everything.
@Suite(.timeLimit(.minutes(2))) struct ClosingTests {
    let server = ChatServer()
    let directory = TemporaryDirectory()

    /// A client on `file` that stores channels `ids`; returned connected.
    private func storingClient(_ ids: [String], file: URL) async throws -> ChatClient {
        let client = server.persistentClient("alice", file: file)
        try await client.connect()
        try await createChannels(ids, client: client)
        return client
    }

    @Test func freeingTheLastReferenceReleasesTheFileAtOnce() async throws {
        let file = directory.file()
        // Many rounds: a release that happens a little later would be caught by one of them.
        for round in 0..<20 {
            do {
                let client = try await storingClient(["r\(round)"], file: file)
                // Handles made and dropped, their loads in flight (odd rounds) or done.
                _ = ChannelRepository(client: client).getChannel("r\(round)")
                _ = MessageRepository(client: client).getMessages(channelId: "r\(round)")
                _ = ChannelRepository(client: client).getChannels(
                    query: ChannelListQuery(filter: .containMembers(userIds: ["alice"])))
                if round.isMultiple(of: 2) { await client.synchronize() }
            }
            let next = server.persistentClient("alice", file: file)
            try await next.connect()
            // What the freed client stored is in the file the new one read.
            #expect(await next.cachedChannels().map(\.channelId).contains("r\(round)"), "round \(round)")
        }
    }

    @Test func closeWritesReleasesAndRefusesEverythingAfter() async throws {
        let file = directory.file()
        let client = try await storingClient(["a", "b"], file: file)
        let channel = ChannelRepository(client: client).getChannel("a")
        await client.close()
        #expect(client.connectionState.snapshot == .disconnected)
        #expect(server.user("alice")?.isOnline == false)

        // The file is free and holds everything.
        let next = server.persistentClient("alice", file: file)
        #expect(await next.cachedChannels().map(\.channelId) == ["a", "b"])
        try await next.connect()

        // The closed client refuses: connect, reads, writes.
        for call in [
            { try await client.connect() },
            { _ = try await ChannelRepository(client: client).getChannel(channelId: "a") },
            { try await createChannels(["c"], client: client) },
            { _ = try await client.hasPermission(.editChannel, forChannel: "a") },
        ] as [@Sendable () async throws -> Void] {
            do {
                try await call()
                Issue.record("a closed client's call succeeded")
            } catch let error as ChatError {
                guard case .notAllowed(let reason) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(reason.contains("closed"))
            }
        }
        #expect(server.channel("c") == nil, "the closed client created a channel")
        // Live handles keep their last state.
        #expect(channel.snapshot?.channelId == "a")

        // A second close returns at once (nothing left to do), and so does one on a fresh client.
        await client.close()
        await next.close()
        await ChatClient(transport: server.connection(userId: "bob")).close()
    }

    @Test func closeWithoutAFileAndWithoutConnecting() async throws {
        let client = ChatClient(transport: server.connection(userId: "carol"))
        await client.close()
        await #expect(throws: ChatError.self) { try await client.connect() }
    }
}
