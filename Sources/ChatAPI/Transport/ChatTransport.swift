/// The client's only way to reach a server: one user on one device.
///
/// The embedded server hands one out with `ChatServer.connection(userId:deviceId:)`;
/// `WebSocketTransport` (in `LiveChannels`) is one to a networked `chat-server`, carrying the
/// same requests, responses and events as the JSON frames of the wire protocol
/// (`Docs/Protocol.md`).
///
/// ## Lifecycle
/// `connect(resumingAfter:)` opens a connection; `send(_:)` works only while connected; the
/// connection ends with `disconnect()` or when it drops. Either way `events` yields
/// `.disconnected(reason)`. A transport can connect again after that.
///
/// ## Events
/// `events` is one stream for the transport's lifetime, spanning connections: for each
/// connection it yields that connection's envelopes in sequence order, then one
/// `.disconnected`. It has a single consumer (the client's sync engine), buffers what that
/// consumer has not taken yet (a server may bound it: a connection too far behind is closed as
/// too slow, `tooSlow`), and finishes only when the transport is discarded. Envelopes may be duplicated or
/// arrive late under fault injection; clients de-duplicate by `sequence`.
///
/// ## Ordering: how a client converges
/// Every response comes stamped (``ResponseEnvelope``) with its `position` — the sequence number
/// of the last event queued for this device when the response's state was read — and the
/// server's `revision` at that moment. Every entity value carries a ``Versioned/version`` from
/// the same server-wide counter. A client that keeps a cache converges by two rules, each of
/// which would catch a fault of the other:
///
/// 1. Apply a response once every event up to its `position` has been applied (so the events
///    the request caused, which are at or before it, are never applied over it), and never read
///    a position after the fact: an event queued after the response was read belongs after it.
/// 2. Never replace a value with one of a lower `version`; and when a response says what is
///    *not* there (a page of a query), believe it only for values whose version is at or below
///    the response's `revision` — a value with a higher version changed after the page was read.
///
/// The response to a request is returned after the events the request caused were put on
/// `events`.
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

    /// Sends a request and awaits its response, stamped with its place in this device's event
    /// stream (see "Ordering" above).
    ///
    /// - Throws: the `ChatError` the server answered with; `ChatError.unavailable` when not
    ///   connected or the connection dropped before the answer.
    func send(_ request: ChatRequest) async throws -> ResponseEnvelope

    /// Every event of every connection, each connection ending with `.disconnected`.
    var events: AsyncStream<ConnectionEvent> { get }

    /// The sequence number of the last envelope put on `events` for this device (0 before any).
    ///
    /// A lower bound for "everything queued so far", for waiting until a client has caught up
    /// (`ChatClient.synchronize()`). Never use it to order a response: an event queued between
    /// the response and this read would be taken for older than the response (use
    /// ``ResponseEnvelope/position``).
    var lastEventSequence: Int { get }

    /// The sequence number of the last event queued for this device on the server: at least
    /// ``lastEventSequence``, and for a networked transport also the events still on their way
    /// (a round trip). What `ChatClient.synchronize()` waits for. The default is
    /// ``lastEventSequence`` (exact for a transport in the server's process).
    func lastQueuedEventSequence() async -> Int

    /// Closes the connection, if any; the server stops this device's reading and typing.
    /// `events` yields `.disconnected(.requested)`. Idempotent.
    func disconnect() async
}

extension ChatTransport {
    /// ``lastEventSequence``: exact where events are queued in-process.
    public func lastQueuedEventSequence() async -> Int { lastEventSequence }
}
