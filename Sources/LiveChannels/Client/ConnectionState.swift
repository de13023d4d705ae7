/// Where a client's connection stands. Observe it with ``ChatClient/connectionState``.
public enum ConnectionState: String, Sendable, Hashable, CaseIterable {
    /// Not connected: before `connect()`, or after `disconnect()`.
    case disconnected
    /// `connect()` is under way.
    case connecting
    /// Connected; events flow.
    case connected
    /// The connection dropped; the client is reconnecting with backoff.
    case reconnecting
}
