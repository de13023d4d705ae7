import ChatAPI
import ChatServer
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import HTTPTypes
import Logging
import Foundation
import NIOCore
import ServiceLifecycle

/// The network front of one `ChatServer`: `GET /v1/connect` (WebSocket, the wire protocol of
/// `Docs/Protocol.md`), `GET /healthz`, `GET /metrics`, and what its additions mount beside it
/// (``GatewayAddition``: the admin API under `/admin/v1/` and the operator's console at
/// `/console`, `ChatAdmin`). It checks tokens, pings, and moves frames; every chat rule stays in
/// the engine (through `WireSession`).
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
    /// The roles served beside the front (the admin API and the console).
    private let additions: [any GatewayAddition]
    /// How many of the node's pushes wait for their providers, and how many were dropped, for
    /// `/metrics` (`nil`: the node pushes nothing).
    private let pushQueue: PushQueueCounts?

    /// A gateway in front of `server`; `pushQueue` tells the depth and drops of the node's push
    /// queues, when it pushes (the node wires its pushes itself: `ChatPush`), for `/metrics`;
    /// `additions` are served beside the front (the node hands it `ChatAdmin`).
    public init(
        server: ChatServer, configuration: GatewayConfiguration, authority: TokenAuthority,
        metrics: GatewayMetrics = GatewayMetrics(),
        pushQueue: PushQueueCounts? = nil,
        additions: [any GatewayAddition] = [],
        logger: Logger = Logger(label: "chat-server")
    ) {
        self.server = server
        self.configuration = configuration
        self.authority = authority
        self.metrics = metrics
        self.logger = logger
        self.pushQueue = pushQueue
        self.additions = additions
    }

    /// The services to run in a `ServiceGroup`: the HTTP and WebSocket server, and the closing
    /// of connections at shutdown. `onRunning` gets the port once the server listens (the real
    /// one when the configuration asks for port 0).
    public func services(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> [any Service] {
        [makeApplication(onRunning: onRunning), ConnectionCloser(sessions: sessions)] + additions.flatMap(\.services)
    }

    private func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void) -> some Service {
        let metrics = metrics
        let router = Router(context: GatewayRequestContext.self)
        // HTTP requests are counted through swift-metrics (chat-server bootstraps its Prometheus
        // factory over the same registry, so they appear in /metrics too).
        router.add(middleware: MetricsMiddleware())
        // 503 while the storage cannot take changes (PostgreSQL away, a full disk), and for good
        // once a node of a cluster stopped serving by itself (saying why).
        router.get("/healthz") { _, _ in
            if let reason = server.haltReason {
                return Response(
                    status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "stopped: \(reason)")))
            }
            return server.isStorageHealthy
                ? Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
                : Response(
                    status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "storage unavailable")))
        }
        let pushQueue = pushQueue
        router.get("/metrics") { _, _ in
            if let pushQueue {
                let (depth, dropped) = pushQueue()
                metrics.pushQueueDepth(depth, dropped: dropped)
            }
            metrics.refresh(
                lag: server.clusterLag, logEntries: server.clusterLogEntries ?? 0, commits: server.databaseCommits)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        // What is served beside the front (the admin API and the console).
        for addition in additions { addition.mount(on: router) }
        let connection = GatewayConnection(
            server: server, metrics: metrics, sessions: sessions, maximumFrameBytes: configuration.maximumFrameBytes,
            pingInterval: configuration.pingInterval, closeTimeout: configuration.closeTimeout)
        let admission = ConnectAdmission(authority: authority, server: server, additions: additions)
        // The same admission without an upgrade: a client whose WebSocket library cannot read a
        // refused upgrade's status asks here why (401 or 429; else 426 Upgrade Required).
        router.get(RouterPath(stringLiteral: WireProtocol.connectPath)) { request, _ -> Response in
            do throws(ConnectAdmission.Refusal) {
                _ = try await admission.admit(
                    authorization: request.headers[.authorization],
                    queryToken: request.uri.queryParameters["token"].map(String.init),
                    device: request.uri.queryParameters["device"].map(String.init), head: request.head)
            } catch {
                return Response(
                    status: error.status, headers: [.contentType: "application/json; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
            }
            return Response(status: .upgradeRequired, headers: [.upgrade: "websocket"])
        }
        let refusals = UpgradeRefusals()
        let port = configuration.port
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [UpgradeRefusals.Rewriter(refusals)]),
            ws: .init(
                maxFrameSize: configuration.maximumFrameBytes,
                // The gateway pings itself (Heartbeat): the library's auto-ping closes
                // with 1001, where the protocol pins 4002.
                autoPing: .disabled,
                closeTimeout: configuration.closeTimeout))
        let shouldUpgrade:
            @Sendable (HTTPRequest, any NIOCore.Channel, Logger) async throws -> ShouldUpgradeResult<
                WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
            > = { head, channel, _ in
                // The token is checked before the upgrade: a refusal is an HTTP answer
                // (401 and {"error":…}), never a WebSocket.
                let uri = URI(head.path ?? "")
                guard uri.path == WireProtocol.connectPath else { return .dontUpgrade }
                let admitted: ConnectAdmission.Admitted
                do throws(ConnectAdmission.Refusal) {
                    admitted = try await admission.admit(
                        authorization: head.headerFields[.authorization],
                        queryToken: uri.queryParameters["token"].map(String.init),
                        device: uri.queryParameters["device"].map(String.init), head: head)
                } catch {
                    metrics.rejected(error.metricReason)
                    refusals.refuse(channel, with: error)
                    return .dontUpgrade
                }
                return .upgrade([:]) { inbound, outbound, _ in
                    await connection.run(
                        inbound: inbound, outbound: outbound, channel: channel, identity: admitted.identity,
                        deviceId: admitted.deviceId)
                }
            }
        return Application(
            router: router,
            // A connection's first request guarded: a malformed one is answered and closed.
            server: HTTPServerBuilder { responder in
                GuardedHTTPChannel(
                    base: HTTP1WebSocketUpgradeChannel(
                        responder: responder, configuration: channelConfiguration, shouldUpgrade: shouldUpgrade))
            },
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
