import ChatAPI
import ChatServer
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The network front of one `ChatServer`: `GET /v1/connect` (WebSocket, the wire protocol of
/// `Docs/Protocol.md`), `GET /healthz`, `GET /metrics`. It checks tokens, pings, and moves
/// frames; every chat rule stays in the engine (through `WireSession`).
///
/// Run it as services of a `ServiceGroup` (``services(onRunning:)``); a graceful shutdown
/// stops accepting, closes every connection with 1001 and returns.
public struct ChatGateway: Sendable {
    /// The engine served.
    public let server: ChatServer
    /// How it listens.
    public let configuration: GatewayConfiguration
    /// Who may connect.
    public let authority: TokenAuthority
    /// What it counts (`/metrics`).
    public let metrics: GatewayMetrics
    private let logger: Logger
    private let sessions = SessionRegistry()

    /// A gateway in front of `server`.
    public init(
        server: ChatServer, configuration: GatewayConfiguration, authority: TokenAuthority,
        metrics: GatewayMetrics = GatewayMetrics(), logger: Logger = Logger(label: "chat-server")
    ) {
        self.server = server
        self.configuration = configuration
        self.authority = authority
        self.metrics = metrics
        self.logger = logger
    }

    /// The services to run in a `ServiceGroup`: the HTTP and WebSocket server, and the closing
    /// of connections at shutdown. `onRunning` gets the port once the server listens (the real
    /// one when the configuration asks for port 0).
    public func services(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> [any Service] {
        [makeApplication(onRunning: onRunning), ConnectionCloser(sessions: sessions)]
    }

    private func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void) -> some Service {
        let metrics = metrics
        let router = Router()
        // HTTP requests are counted through swift-metrics (chat-server bootstraps its Prometheus
        // factory over the same registry, so they appear in /metrics too).
        router.add(middleware: MetricsMiddleware())
        router.get("/healthz") { _, _ in "ok" }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        let connection = GatewayConnection(
            server: server, authority: authority, metrics: metrics, sessions: sessions,
            maximumFrameBytes: configuration.maximumFrameBytes, logger: logger)
        let webSockets = Router(context: BasicWebSocketRequestContext.self)
        webSockets.ws(RouterPath(stringLiteral: WireProtocol.connectPath)) { inbound, outbound, context in
            await connection.run(inbound: inbound, outbound: outbound, request: context.request)
        }
        let port = configuration.port
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: webSockets,
                configuration: .init(ws: .init(
                    maxFrameSize: configuration.maximumFrameBytes,
                    autoPing: .enabled(timePeriod: configuration.pingInterval),
                    closeTimeout: configuration.closeTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: "chat-server"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}

/// At graceful shutdown (before the server stops), closes every connection with 1001.
private struct ConnectionCloser: Service {
    let sessions: SessionRegistry

    func run() async throws {
        try? await gracefulShutdown()
        await sessions.closeAll(code: WireCloseCode.goingAway.rawValue, reason: "the server is shutting down")
    }
}
