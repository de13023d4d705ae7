/// Why a connection ended.
public enum DisconnectReason: Sendable, Hashable, Codable {
    /// The client called `disconnect()`.
    case requested
    /// The connection dropped (network, server, fault injection). The server stopped this
    /// device's reading; reconnect with `resumingAfter:` the last applied sequence number.
    case connectionLost(ChatError)
}
