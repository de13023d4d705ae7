import ChatAPI
import ChatServer
import LiveChannels

/// An embedded server with connected clients, for integration tests.
struct ChatFixture {
    let server: ChatServer
    /// How the clients reach the server.
    let door: Door

    init(server: ChatServer = ChatServer(), door: Door = .current) {
        self.server = server
        self.door = door
    }

    /// A connected client for `userId` on `deviceId` (registering the user).
    func client(_ userId: String, deviceId: String = "phone") async throws -> ChatClient {
        let client = ChatClient(
            transport: door.transport(server, userId: userId, deviceId: deviceId), reconnectPolicy: .immediate)
        try await client.connect()
        return client
    }
}

extension LiveObject {
    /// The first value (current or later) satisfying `predicate`.
    func value(where predicate: @Sendable (Value?) -> Bool) async -> Value? {
        for await value in values where predicate(value) { return value }
        return nil
    }

    /// Waits until the object is no longer loading; returns it.
    @discardableResult
    func loaded() async -> LiveObject<Value> {
        for await _ in values where loadingStatus != .loading { break }
        return self
    }
}

extension LiveCollection {
    /// Waits until the collection is no longer loading (its first page or next page arrived).
    @discardableResult
    func loaded() async -> LiveCollection<Element> {
        for await update in updates where update.loadingStatus != .loading && update.dataStatus != .notExist {
            break
        }
        return self
    }
}
