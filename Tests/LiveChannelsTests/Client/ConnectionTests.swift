import ChatAPI
import ChatServer
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
        let first = ChatClient(transport: server.connection(userId: "bob", deviceId: "tablet"), reconnectPolicy: .immediate)
        let second = ChatClient(transport: server.connection(userId: "bob", deviceId: "tablet"), reconnectPolicy: .immediate)
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
}
