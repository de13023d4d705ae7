import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Locking
import Testing

/// Connecting is idempotent, and two clients on one user and device do not fight.
@Suite(.timeLimit(.minutes(1))) struct ConnectionTests {
    @Test func concurrentConnectsShareOneAttemptAndEndConnected() async throws {
        let server = ChatServer()
        for _ in 0..<20 {
            let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await client.connect() } }
                try await group.waitForAll()
            }
            await client.synchronize()
            #expect(client.connectionState.snapshot == .connected)
            // Connecting a connected client changes nothing.
            try await client.connect()
            #expect(client.connectionState.snapshot == .connected)
            await client.disconnect()
            #expect(client.connectionState.snapshot == .disconnected)
        }
    }

    @Test func aClientReplacedBySameDeviceStopsInsteadOfFighting() async throws {
        let server = ChatServer()
        let first = ChatClient(
            transport: server.connection(userId: "bob", deviceId: "tablet"), reconnectPolicy: .immediate)
        let second = ChatClient(
            transport: server.connection(userId: "bob", deviceId: "tablet"), reconnectPolicy: .immediate)
        let changes = Lock(0)
        let token = first.connectionState.observe(on: .synchronous) { _, _ in changes.withLock { $0 += 1 } }
        try await first.connect()
        try await second.connect()
        let state = await first.connectionState.value { $0 == .disconnected }
        #expect(state == .disconnected)
        #expect(first.connectionState.error != nil)
        await second.synchronize()
        // The second stays connected: the first did not reconnect and knock it off.
        #expect(second.connectionState.snapshot == .connected)
        #expect(changes.withLock { $0 } <= 4)  // initial, connecting, connected, disconnected
        _ = try await ChannelRepository(client: second).createChannel(with: CommunityChannelBuilder())
        // Taking over again works, in turn.
        try await first.connect()
        #expect(first.connectionState.snapshot == .connected)
        token.invalidate()
    }

    /// A device disconnected for its rate (`.connectionLost(.rateLimited(retryAfter:))`) waits
    /// the retry-after before it reconnects, whatever its policy.
    @Test func reconnectingHonoursTheServersRetryAfter() async throws {
        var configuration = ServerConfiguration()
        configuration.requestsPerSecond = 1
        let server = ChatServer(configuration: configuration)
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        let client = ChatClient(transport: server.connection(userId: "ann"), reconnectPolicy: .immediate)
        try await client.connect()
        let lostAt = Lock<(Date, Double)?>(nil)
        let connectedAgainAt = Lock<Date?>(nil)
        let token = client.connectionState.observe(on: .synchronous) { _, _ in
            let state = client.connectionState.snapshot
            if state == .reconnecting, case .rateLimited(let retryAfter)? = client.connectionState.error as? ChatError {
                lostAt.withLock { $0 = $0 ?? (Date(), retryAfter) }
            }
            if state == .connected, lostAt.withLock({ $0 }) != nil {
                connectedAgainAt.withLock { $0 = $0 ?? Date() }
            }
        }
        let channels = ChannelRepository(client: client)
        for _ in 0..<102 where lostAt.withLock({ $0 }) == nil {
            _ = try? await channels.getChannel(channelId: "room")
        }
        let state = await client.connectionState.value { $0 == .connected && connectedAgainAt.withLock { $0 } != nil }
        #expect(state == .connected)
        let (lost, retryAfter) = try #require(lostAt.withLock { $0 })
        let again = try #require(connectedAgainAt.withLock { $0 })
        #expect(retryAfter > 0)
        #expect(
            again.timeIntervalSince(lost) >= retryAfter,
            "reconnected \(again.timeIntervalSince(lost)) s after, retry-after \(retryAfter) s")
        token.invalidate()
    }
}
