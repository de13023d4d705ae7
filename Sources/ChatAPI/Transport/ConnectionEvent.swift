/// An element of `ChatTransport.events`: an event, or the end of a connection.
public enum ConnectionEvent: Sendable, Hashable, Codable {
    /// A server event of the current connection.
    case event(EventEnvelope)
    /// The connection ended. Nothing more arrives until the next successful `connect`.
    case disconnected(DisconnectReason)
}
