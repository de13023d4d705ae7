import ArgumentParser
import ChatAPI
import ChatGateway
import ChatServer
import Foundation
import LiveChannels
import LiveChannelsNIO
import Logging
import ServiceLifecycle

/// `chat-load`: the server's load generator. Every figure is printed beside a baseline measured
/// in the same run.
///
/// - `idle`: connections held by a `chat-server` process (each through hello/welcome), and its
///   memory per idle connection.
/// - `fanout`: deliveries per second in a 100-member channel, against a bare Hummingbird
///   WebSocket broadcast of the same bytes (the floor of the stack).
/// - `requests`: acknowledged sends by 1, 8 and 64 senders, against a bare Hummingbird server
///   that answers each frame to its sender (the floor of a request and its answer).
/// - `latency`: send → receive latency percentiles at a fixed rate and at the maximum rate
///   (`--members 100`: in a channel of 100 connected members).
/// - `sdk`: the SDK end to end (send → another client's live list) over the wire, beside the
///   same clients in process.
/// - `storage`: durable sends and restarts on PostgreSQL, beside SQLite and memory.
/// - `cluster`: several `chat-server` nodes on one PostgreSQL, beside one node and the floor.
@main
struct ChatLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-load", abstract: "Load tests of chat-server, each beside a baseline.",
        subcommands: [
            Idle.self, Fanout.self, Latency.self, Requests.self, EndToEnd.self, Storage.self, Cluster.self,
            IdleWorker.self,
        ])
}

/// Runs `body` against an in-process gateway (dev tokens) at a free port.
func withGateway<Result: Sendable>(
    server: ChatServer = ChatServer(), _ body: @Sendable (Int) async throws -> Result
) async throws -> Result {
    var logger = Logger(label: "chat-load")
    logger.logLevel = .critical
    let authority = try await TokenAuthority(secret: nil, allowsDevTokens: true)
    let gateway = ChatGateway(
        server: server, configuration: GatewayConfiguration(port: 0, pingInterval: .seconds(60)),
        authority: authority, logger: logger)
    return try await withServices(gateway.services(onRunning:), body)
}

/// Runs `body` with the services `make` returns running (the port they listen on passed in),
/// then shuts them down.
func withServices<Result: Sendable>(
    _ make: (@escaping @Sendable (Int) async -> Void) -> [any Service], _ body: @Sendable (Int) async throws -> Result
) async throws -> Result {
    var logger = Logger(label: "chat-load")
    logger.logLevel = .critical
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let group = ServiceGroup(configuration: .init(services: make { continuation.yield($0) }, logger: logger))
    return try await withThrowingTaskGroup(of: Result?.self) { tasks in
        tasks.addTask {
            try await group.run()
            return nil
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ChatError.unavailable("did not start") }
        let outcome: Swift.Result<Result, any Error>
        do { outcome = .success(try await body(port)) } catch { outcome = .failure(error) }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try outcome.get()
    }
}

/// A raw protocol client: a WebSocket through `NIOWebSocketConnector`, hello/welcome done.
struct RawClient: Sendable {
    let connection: any WebSocketConnection

    static func connect(port: Int, host: String = "127.0.0.1", user: String, device: String = "load") async throws
        -> RawClient
    {
        let connection = try await NIOWebSocketConnector().connect(
            WebSocketRequest(
                url: URL(string: "ws://\(host):\(port)/v1/connect?device=\(device)")!,
                headers: ["Authorization": "Bearer dev:\(user)"], pingInterval: .seconds(600)))
        try await connection.send(WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil)))
        var iterator = connection.inbound.makeAsyncIterator()
        guard case .text(let text)? = await iterator.next(), case .welcome = try WireCodec.decode(text) else {
            throw ChatError.unavailable("no welcome")
        }
        return RawClient(connection: connection)
    }

    /// Sends `request` and waits for its answer, skipping other frames (before a measurement:
    /// it reads the connection's frames itself).
    ///
    /// - Throws: the failure's `ChatError`; `unavailable` when the connection ends first.
    func request(_ request: ChatRequest) async throws -> ChatResponse {
        try await connection.send(WireCodec.encode(.request(id: 0, request: request)))
        for await item in connection.inbound {
            guard case .text(let text) = item, FrameText.isAnswer(text) else { continue }
            switch try WireCodec.decode(text) {
            case .response(_, let envelope): return envelope.response
            case .failure(_, let error): throw error
            default: continue
            }
        }
        throw ChatError.unavailable("the connection ended before the answer")
    }
}
