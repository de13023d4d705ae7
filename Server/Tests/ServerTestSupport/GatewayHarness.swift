import ChatAPI
import ChatAdmin
import ChatGateway
import ChatServer
import Foundation
import LiveChannels
import LiveCore
import LiveChannelsNIO
import Logging
import ServiceLifecycle

/// A `ChatGateway` on 127.0.0.1 at a free port, for the length of `body`; shut down after it
/// (gracefully: connections close with 1001), whatever `body` does.
package struct GatewayHarness: Sendable {
    package static let secret = Array("an example secret of at least 32 bytes".utf8)

    package let server: ChatServer
    package let port: Int
    package let authority: TokenAuthority
    private let group: ServiceGroup

    /// Starts the graceful shutdown (as SIGTERM does) without waiting for it.
    package func shutdown() async { await group.triggerGracefulShutdown() }

    package var url: URL { URL(string: "ws://127.0.0.1:\(port)/v1/connect")! }

    /// Runs `body` against a gateway in front of `server`.
    package static func run<Result: Sendable>(
        server: ChatServer = ChatServer(), dev: Bool = true, leeway: TimeInterval = TokenAuthority.defaultLeeway,
        pingInterval: Duration = .seconds(15),
        _ body: @Sendable (GatewayHarness) async throws -> Result
    ) async throws -> Result {
        let authority = try await TokenAuthority(secret: secret, allowsDevTokens: dev, leeway: leeway)
        var logger = Logger(label: "gateway-test")
        logger.logLevel = .critical
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let metrics = GatewayMetrics()
        let admin = await ChatAdmin(
            server: server, authority: authority, secret: secret, metrics: metrics, logger: logger)
        let gateway = ChatGateway(
            server: server, configuration: GatewayConfiguration(port: 0, pingInterval: pingInterval),
            authority: authority, metrics: metrics, additions: [admin], logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: gateway.services(onRunning: { portContinuation.yield($0) }), logger: logger))
        return try await withThrowingTaskGroup(of: Result?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw ChatError.unavailable("the gateway did not start") }
            let harness = GatewayHarness(server: server, port: port, authority: authority, group: group)
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(harness))
            } catch {
                outcome = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }

    /// A transport for `userId` through the gateway, with `token` (a dev token by default).
    package func transport(
        _ userId: String, deviceId: String = "phone", pingInterval: Duration = .seconds(15),
        token: (@Sendable () async throws -> String)? = nil
    ) -> WebSocketTransport {
        WebSocketTransport(
            url: url, userId: userId, deviceId: deviceId, token: token ?? { "dev:\(userId)" },
            connector: NIOWebSocketConnector(), pingInterval: pingInterval)
    }

    /// A connected client for `userId`.
    package func client(_ userId: String, deviceId: String = "phone") async throws -> ChatClient {
        let client = ChatClient(transport: transport(userId, deviceId: deviceId), reconnectPolicy: .immediate)
        try await client.connect()
        return client
    }

    /// A signed token for `userId`.
    package func token(_ userId: String, ttl: TimeInterval = 3_600) async throws -> String {
        try await authority.makeToken(for: userId, ttl: ttl)
    }
}

extension LiveCollection {
    /// Waits until the collection is no longer loading (its first page arrived).
    @discardableResult
    package func loaded() async -> LiveCollection<Element> {
        for await update in updates where update.loadingStatus != .loading && update.dataStatus != .notExist { break }
        return self
    }
}
