import Foundation

/// Opens WebSocket connections for ``WebSocketTransport``: the seam between the chat protocol
/// and a WebSocket implementation.
///
/// The package ships ``URLSessionWebSocketConnector`` (Apple platforms) and, in the `Server/`
/// package's `LiveChannelsNIO` module, `NIOWebSocketConnector` (SwiftNIO, for Linux, where
/// URLSession has no WebSockets). A test can pass its own.
public protocol WebSocketConnector: Sendable {
    /// Opens a connection and returns once the WebSocket handshake succeeded.
    ///
    /// The connection keeps itself alive: it pings the server every `request.pingInterval`
    /// and, when a ping goes unanswered for two intervals, ends with
    /// `WebSocketInbound.closed(code: nil, …)`.
    ///
    /// - Throws: `ChatError.unavailable` when the server cannot be reached or refuses the
    ///   upgrade for a reason the connector cannot tell; `ChatError.unauthorized` (HTTP 401) and
    ///   `ChatError.limitExceeded` (HTTP 429) where the connector can read the refusal.
    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection
}

/// What a ``WebSocketConnector`` opens: the URL, the handshake's headers, the heartbeat.
public struct WebSocketRequest: Sendable, Hashable {
    /// `ws://` or `wss://`, with the path and query.
    public var url: URL
    /// Headers of the upgrade request (`Authorization`).
    public var headers: [String: String]
    /// How often the connection pings the server; two intervals without a pong end it.
    public var pingInterval: Duration

    /// A request.
    public init(url: URL, headers: [String: String] = [:], pingInterval: Duration = .seconds(15)) {
        self.url = url
        self.headers = headers
        self.pingInterval = pingInterval
    }
}

/// One open WebSocket: text frames out, text frames and one close in.
public protocol WebSocketConnection: Sendable {
    /// What arrives, in order: text frames, then exactly one `.closed`, then the end.
    var inbound: AsyncStream<WebSocketInbound> { get }

    /// Sends one text frame.
    /// - Throws: when the connection is closed.
    func send(_ text: String) async throws

    /// Starts the close handshake with `code`; `inbound` then ends with `.closed`. Idempotent.
    func close(code: Int, reason: String) async
}

/// An element of ``WebSocketConnection/inbound``.
public enum WebSocketInbound: Sendable, Hashable {
    /// A text frame.
    case text(String)
    /// The connection ended: the peer's close code and reason, or `nil` when it dropped without
    /// a close frame (a dead network, a missed heartbeat).
    case closed(code: Int?, reason: String)
}
