import ChatAPI
import ChatServer
import LiveChannels

/// An embedded server with connected clients, for integration tests.
struct ChatFixture {
    let server: ChatServer

    init(server: ChatServer = ChatServer()) {
        self.server = server
    }

    /// A connected client for `userId` on `deviceId` (registering the user).
    func client(_ userId: String, deviceId: String = "phone") async throws -> ChatClient {
        let client = ChatClient(
            transport: server.connection(userId: userId, deviceId: deviceId), reconnectPolicy: .immediate)
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
