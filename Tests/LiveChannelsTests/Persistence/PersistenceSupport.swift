import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels

/// A fresh directory for one test's cache files, removed when the value is freed.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("livechannels-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String = "cache.sqlite") -> URL { url.appendingPathComponent(name) }
}

extension ChatServer {
    /// A client of `userId` on `deviceId` caching in `file`, not connected.
    func persistentClient(
        _ userId: String, deviceId: String = "phone", file: URL, limits: PersistenceLimits = PersistenceLimits()
    )
        -> ChatClient
    {
        ChatClient(
            transport: connection(userId: userId, deviceId: deviceId), persistence: .sqlite(file, limits: limits),
            reconnectPolicy: .immediate)
    }
}

extension ChatClient {
    /// The cached values, once the file is loaded.
    func cachedChannels() async -> [Channel] {
        await sync.restoration.wait()
        return sync.channels.all.sorted { $0.channelId < $1.channelId }
    }

    func cachedMessages(in channelId: String) async -> [Message] {
        await sync.restoration.wait()
        return sync.messages.all.filter { $0.channelId == channelId }.sorted { $0.sequence < $1.sequence }
    }
}

/// Creates community channels `ids` as `client`'s user (a member of each).
func createChannels(_ ids: [String], client: ChatClient) async throws {
    let repository = ChannelRepository(client: client)
    for id in ids {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setDisplayName(id.uppercased())
        _ = try await repository.createChannel(with: builder)
    }
}

/// Fills `file` as `userId`'s client does that creates channels `ids` (a member of each), then
/// closes it.
func storeChannels(_ ids: [String], as userId: String = "alice", on server: ChatServer, in file: URL) async throws {
    let client = server.persistentClient(userId, file: file)
    try await client.connect()
    try await createChannels(ids, client: client)
    await client.closePersistence()
}

/// The channels `userId` is a member of, sorted by id: the lists the tests reopen.
let joinedQuery = ChannelListQuery(
    filter: .equal(.joined, to: true), sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 20)
