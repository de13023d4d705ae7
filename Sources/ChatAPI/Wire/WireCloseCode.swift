/// The WebSocket close codes of the wire protocol and what each means to a client.
public enum WireCloseCode: Int, Sendable, Hashable, CaseIterable {
    /// The client closed the connection (`disconnect()`).
    case normal = 1000
    /// The server is going away (shutting down): reconnect later.
    case goingAway = 1001
    /// Not this protocol: not JSON, no `type`, an unknown `type`, a bad `id`, anything before
    /// `hello`.
    case protocolError = 1002
    /// A binary frame: the protocol is text only.
    case unsupportedData = 1003
    /// The server refused the connect itself after the upgrade, for a reason other than the
    /// token or the rate (a closed server, a device cap reached meanwhile): the close's reason
    /// says which.
    case policyViolation = 1008
    /// A frame over the server's size limit.
    case messageTooBig = 1009
    /// The server failed (a frame it could not encode, a lost connection to the engine):
    /// reconnect, resuming.
    case internalError = 1011
    /// The token was refused, or expired while connected: ask the token provider again.
    case unauthorized = 4001
    /// No pong within two ping intervals of the first unanswered ping.
    case heartbeatTimeout = 4002
    /// Another connection of the same user and device took over: do not reconnect by yourself.
    case replaced = 4003
    /// Too many requests: the device kept sending while rate limited.
    case rateLimited = 4008
    /// Too slow: more events pending for the device than the server keeps.
    case tooSlow = 4009
    /// The protocol version of `hello` is not one the server speaks.
    case unsupportedProtocol = 4010

    /// What a client reports when the connection ends with `code` (`nil`: the connection dropped
    /// without a close frame), as `ConnectionEvent.disconnected`'s reason.
    public static func disconnectReason(forCode code: Int?, reason: String) -> DisconnectReason {
        let detail = reason.isEmpty ? "" : ": \(reason)"
        switch code.flatMap(WireCloseCode.init(rawValue:)) {
        case .normal?: return .requested
        case .replaced?: return .replaced
        case .unauthorized?: return .connectionLost(.unauthorized("the server closed the connection\(detail)"))
        case .unsupportedProtocol?:
            return .connectionLost(.notAllowed("the server does not speak protocol \(WireProtocol.version)\(detail)"))
        case let known?:
            return .connectionLost(
                .unavailable("the server closed the connection (\(known.rawValue) \(known))\(detail)"))
        case nil:
            if let code { return .connectionLost(.unavailable("the server closed the connection (\(code))\(detail)")) }
            return .connectionLost(.unavailable("the connection dropped\(detail)"))
        }
    }
}
