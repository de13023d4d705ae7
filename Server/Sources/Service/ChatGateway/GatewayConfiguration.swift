import Foundation

/// How a ``ChatGateway`` listens and whom it lets in.
public struct GatewayConfiguration: Sendable {
    /// The address to listen on (default 127.0.0.1).
    public var host: String
    /// The port (default 8080; 0 picks a free one).
    public var port: Int
    /// How often the server pings each connection; a connection that sends no pong within two
    /// intervals of the first ping it left unanswered is closed with 4002.
    public var pingInterval: Duration
    /// The largest frame (and message) a client may send, in bytes.
    public var maximumFrameBytes: Int
    /// How long a close handshake the server started may take before it drops the connection.
    /// Short, so that a client that missed the close frame (it was writing at that moment)
    /// sees the connection end soon and reconnects.
    public var closeTimeout: Duration

    /// A configuration; the defaults are `chat-server`'s.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, pingInterval: Duration = .seconds(15),
        maximumFrameBytes: Int = 1_048_576, closeTimeout: Duration = .seconds(3)
    ) {
        self.closeTimeout = closeTimeout
        self.host = host
        self.port = port
        self.pingInterval = pingInterval
        self.maximumFrameBytes = maximumFrameBytes
    }
}
