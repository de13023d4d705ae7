import ChatAPI
import ChatServer
import Foundation
@_spi(Persistence) @testable import LiveChannels
import LiveCore
import TestSupport
import Testing

/// The client's message cache stays bounded: past its retention limit, the messages of
/// channels no live handle shows leave memory (the least recently written channel first), while
/// what a list or an object shows stays, and the disk cache keeps everything.
@Suite(.timeLimit(.minutes(2))) struct MessageCacheRetentionTests {
    let server = ChatServer()

    /// Alice, a member of channels `c0`…`c(count-1)`, on a client keeping `retention` messages.
    private func client(retention: Int?, channels count: Int, persistence: Persistence = .inMemory) async throws
        -> ChatClient
    {
        let client = ChatClient(
            transport: server.connection(userId: "alice", deviceId: "phone"), persistence: persistence,
            reconnectPolicy: .immediate, messageRetention: retention)
        try await client.connect()
        try await createChannels((0..<count).map { "c\($0)" }, client: client)
        return client
    }

    /// Sends `perChannel` messages to each channel, channel after channel, and waits until the
    /// client applied them.
    private func send(_ perChannel: Int, to channels: [String], client: ChatClient) async throws {
        for channel in channels {
            for number in 0..<perChannel {
                _ = try await server.sendMessage(as: "alice", channelId: channel, text: "\(channel) #\(number)")
            }
        }
        await client.synchronize()
    }

    private func cached(_ client: ChatClient, in channelId: String) -> Int {
        client.sync.messages.all.count { $0.channelId == channelId }
    }

    @Test func messagesOfChannelsNothingShowsLeaveMemoryPastTheLimit() async throws {
        let client = try await client(retention: 100, channels: 10)
        try await send(60, to: (0..<10).map { "c\($0)" }, client: client)
        let count = client.sync.messages.count
        // At most the limit plus the slack before the next pass (a quarter of it).
        #expect(count <= 125, "\(count) messages in memory")
        // The least recently written channels went first, whole; the latest stays whole.
        #expect(cached(client, in: "c0") == 0)
        #expect(cached(client, in: "c9") == 60)
        for channel in 0..<10 {
            let kept = cached(client, in: "c\(channel)")
            #expect(kept == 0 || kept == 60, "c\(channel) kept \(kept): a channel is evicted whole")
        }
        // The server's other records stay complete: nothing but memory changed.
        #expect(client.sync.channels.count == 10)
    }

    @Test func withoutALimitEveryMessageStays() async throws {
        let client = try await client(retention: nil, channels: 10)
        try await send(60, to: (0..<10).map { "c\($0)" }, client: client)
        #expect(client.sync.messages.count == 600)
    }

    @Test func aChannelAListShowsKeepsEveryMessage() async throws {
        let client = try await client(retention: 50, channels: 3)
        let list = MessageRepository(client: client).getMessages(channelId: "c0", pageSize: 20)
        await list.loaded()
        // Interleaved: c0 is written to as often as the others, and still stays.
        for round in 0..<100 {
            for channel in ["c0", "c1", "c2"] {
                _ = try await server.sendMessage(as: "alice", channelId: channel, text: "\(channel) #\(round)")
            }
        }
        await client.synchronize()
        #expect(cached(client, in: "c0") == 100)
        #expect(list.count == 100)
        #expect(list.snapshots.map(\.text) == (0..<100).map { "c0 #\($0)" })
        #expect(cached(client, in: "c1") + cached(client, in: "c2") < 200, "the channels nothing shows were evicted")
        withExtendedLifetime(list) {}
    }

    @Test func aListOpenedAfterEvictionShowsTheWholePageFromTheServer() async throws {
        let client = try await client(retention: 20, channels: 4)
        try await send(30, to: ["c0", "c1", "c2", "c3"], client: client)
        #expect(cached(client, in: "c0") == 0)
        let list = MessageRepository(client: client).getMessages(channelId: "c0", pageSize: 30)
        await list.loaded()
        #expect(list.dataStatus == .fresh)
        #expect(list.snapshots.map(\.text) == (0..<30).map { "c0 #\($0)" })
        // Shown now: it stays while more arrives elsewhere.
        try await send(30, to: ["c1", "c2", "c3"], client: client)
        #expect(cached(client, in: "c0") == 30)
        withExtendedLifetime(list) {}
    }

    @Test func closingAListLetsItsChannelGo() async throws {
        let client = try await client(retention: 20, channels: 3)
        do {
            let list = MessageRepository(client: client).getMessages(channelId: "c0", pageSize: 30)
            await list.loaded()
            try await send(30, to: ["c0"], client: client)
            #expect(cached(client, in: "c0") == 30)
            withExtendedLifetime(list) {}
        }
        try await send(30, to: ["c1", "c2"], client: client)
        #expect(cached(client, in: "c0") == 0, "nothing shows c0 any more: it left first")
    }

    @Test func theDiskCacheKeepsWhatLeavesMemory() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file()
        let client = try await client(retention: 20, channels: 5, persistence: .sqlite(file))
        try await send(20, to: (0..<5).map { "c\($0)" }, client: client)
        #expect(client.sync.messages.count <= 36)
        await client.close()

        let reader = ChatClient(
            transport: server.connection(userId: "alice", deviceId: "phone"), persistence: .sqlite(file),
            reconnectPolicy: .immediate, messageRetention: nil)
        for channel in 0..<5 {
            #expect(await reader.cachedMessages(in: "c\(channel)").count == 20, "c\(channel)")
        }
    }

    // MARK: The cache itself

    private func message(_ number: Int, in channelId: String, version: Int) -> Message {
        var message = Message(
            messageId: "\(channelId)-m\(number)", channelId: channelId, sequence: number, userId: "alice",
            text: "#\(number)")
        message.version = version
        return message
    }

    @Test func anEntityALiveObjectShowsStays() {
        let cache = EntityCache<Message>(retaining: 4)
        let source = LiveObjectSource<Message>()
        cache.register(source, for: "a-m0")
        var version = 0
        for channel in ["a", "b", "c", "d", "e", "f"] {
            for number in 0..<10 {
                version += 1
                cache.upsert([message(number, in: channel, version: version)])
            }
        }
        #expect(cache.entity("a-m0") != nil, "shown by a live object")
        #expect(cache.entity("a-m1") == nil)
        #expect(cache.count <= 4 + 16 + 1)
        withExtendedLifetime(source) {}
    }

    @Test func aListOfEveryScopeKeepsEverything() {
        let cache = EntityCache<Message>(retaining: 4)
        final class EveryChannel: EntityCacheObserver {
            func entitiesDidChange(_ changed: [Message]) {}
            func entitiesDidDisappear(_ removed: [Message]) {}
            func reload(discarding: Bool) async {}
            var channelScope: String? { nil }
        }
        _ = cache.register(EveryChannel())
        for number in 0..<100 { cache.upsert([message(number, in: "c\(number % 7)", version: number + 1)]) }
        #expect(cache.count == 100)
    }

    /// Seeded: any sequence of writes, shows and releases keeps the bound and what is shown.
    @Test func randomWritesKeepTheBoundAndWhatIsShown() {
        for seed in UInt64(1)...200 {
            var random = SeededGenerator(seed: seed)
            let limit = Int.random(in: 0...30, using: &random)
            let cache = EntityCache<Message>(retaining: limit)
            var shown: [String: LiveObjectSource<Message>] = [:]
            var everShown: Set<String> = []
            var version = 0
            var sequence = 0
            for _ in 0..<400 {
                let channel = "c\(Int.random(in: 0..<8, using: &random))"
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    let key = "\(channel)-m\(Int.random(in: 0..<max(1, sequence), using: &random))"
                    let source = LiveObjectSource<Message>()
                    cache.register(source, for: key)
                    shown[key] = source
                    everShown.insert(key)
                case 1:
                    if let key = shown.keys.randomElement(using: &random) { shown[key] = nil }
                default:
                    version += 1
                    sequence += 1
                    cache.upsert([message(sequence, in: channel, version: version)])
                }
                cache.checkInvariants()
                // A pass runs past the limit plus its slack and leaves at most the limit, or only
                // what live objects show (every key ever shown, at most).
                if cache.count > limit + max(limit / 4, 16) + 1 + everShown.count {
                    Issue.record(
                        "seed \(seed): \(cache.count) messages in memory, limit \(limit), \(everShown.count) shown")
                    return
                }
            }
            let lost = shown.filter { key, source in source.snapshot != nil && cache.entity(key) == nil }.map(\.key)
            if !lost.isEmpty {
                Issue.record("seed \(seed): \(lost.sorted()) shown by live objects but left the cache")
                return
            }
        }
    }
}
