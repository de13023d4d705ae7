/// An element of `ChatTransport.events`: an event, or the end of a connection.
public enum ConnectionEvent: Sendable, Hashable, Codable {
    /// A server event of the current connection.
    case event(EventEnvelope)
    /// The connection ended. Nothing more arrives until the next successful `connect`.
    case disconnected(DisconnectReason)
}

/// Why a connection ended.
public enum DisconnectReason: Sendable, Hashable, Codable {
    /// The client called `disconnect()`.
    case requested
    /// The connection dropped (network, server, fault injection). The server stopped this
    /// device's reading; reconnect with `resumingAfter:` the last applied sequence number.
    case connectionLost(ChatError)
}
