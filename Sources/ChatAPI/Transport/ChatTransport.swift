/// The client's only way to reach a server: one user on one device.
///
/// The embedded server hands one out with `ChatServer.connection(userId:deviceId:)`; a networked
/// backend would implement it over a socket, carrying the `Codable` requests, responses and
/// events unchanged.
///
/// ## Lifecycle
/// `connect(resumingAfter:)` opens a connection; `send(_:)` works only while connected; the
/// connection ends with `disconnect()` or when it drops. Either way `events` yields
/// `.disconnected(reason)`. A transport can connect again after that.
///
/// ## Events
/// `events` is one stream for the transport's lifetime, spanning connections: for each
/// connection it yields that connection's envelopes in sequence order, then one
/// `.disconnected`. It has a single consumer (the client's sync engine), buffers without
/// bound, and finishes only when the transport is discarded. Envelopes may be duplicated or
/// arrive late under fault injection; clients de-duplicate by `sequence`.
///
/// ## Ordering
/// The response to a request is returned after the events the request caused were put on
/// `events`, so a client that has seen a response may rely on the matching events being queued.
public protocol ChatTransport: Sendable {
    /// The user this transport acts for.
    var userId: String { get }
    /// The device this transport is, distinguishing a user's simultaneous connections (reading
    /// status is per device).
    var deviceId: String { get }

    /// Opens a connection, registering the user on first connect. Pass the sequence number of
    /// the last event applied to catch up (`nil` for a fresh start); the result says whether
    /// the missed events follow on `events` or the client must resync.
    ///
    /// - Throws: `ChatError.unavailable` when the server cannot be reached;
    ///   `ChatError.invalidArgument` for an unusable user or device id.
    func connect(resumingAfter sequence: Int?) async throws -> ConnectResult

    /// Sends a request and awaits its response.
    ///
    /// - Throws: the `ChatError` the server answered with; `ChatError.unavailable` when not
    ///   connected or the connection dropped before the answer.
    func send(_ request: ChatRequest) async throws -> ChatResponse

    /// Every event of every connection, each connection ending with `.disconnected`.
    var events: AsyncStream<ConnectionEvent> { get }

    /// Closes the connection, if any; the server stops this device's reading and typing.
    /// `events` yields `.disconnected(.requested)`. Idempotent.
    func disconnect() async
}
