import ChatAPI
import Foundation
import Locking

/// One device of one user connected to the embedded server: the `ChatTransport` that
/// ``ChatServer/connection(userId:deviceId:)`` returns.
///
/// Requests are asynchronous. After any injected request fault (a failure, a delay, an answer
/// lost with the connection), the engine admits the request by the limits and applies it under
/// its lock (a long channel query in steps, one hold of the lock each, other requests running
/// between them), putting the events it caused on ``events`` in the same hold; the response is
/// returned once the request's changes are written to the storage (at once in memory). On a
/// node of a cluster a change is applied when its entry of the change log applies on this
/// node, and answered then. Either way a response comes after the events it caused (unless an
/// event-delay fault holds them back). Discarding the transport ends its connection.
///
/// - Threading: every member is thread-safe.
final class ServerConnection: ChatTransport {
    let userId: String
    let deviceId: String
    let events: AsyncStream<ConnectionEvent>
    private let mailbox: EventMailbox
    private let engine: ServerEngine
    /// Told at once when the server ends this transport's connection (see `ConnectionLink`).
    private let interrupt: (@Sendable (DisconnectReason) -> Void)?
    /// Guards the id of this transport's latest connection (`nil` before the first connect).
    /// The server's hub decides whether it is still current. Lock order:
    /// `LockRank.serverConnection`: connecting runs the engine (its lock) under it.
    private let linkId = Lock<UInt64?>(nil, rank: .serverConnection)

    private var device: ServerState.DeviceKey { ServerState.DeviceKey(userId: userId, deviceId: deviceId) }

    init(
        engine: ServerEngine, userId: String, deviceId: String,
        interrupt: (@Sendable (DisconnectReason) -> Void)? = nil
    ) {
        self.engine = engine
        self.interrupt = interrupt
        self.userId = userId
        self.deviceId = deviceId
        mailbox = EventMailbox(limit: EventHub.mailboxLimit(maxPendingEvents: engine.configuration.maxPendingEvents))
        events = mailbox.makeStream()
    }

    deinit {
        if let id = linkId.withLock({ $0 }) {
            engine.disconnect(device, linkId: id, reason: .requested)
        }
        mailbox.finish()?.run()
    }

    func connect(resumingAfter sequence: Int?) async throws -> ConnectResult {
        let previous = linkId.withLock { $0 }
        let (result, id) = try await engine.connect(
            device, replacing: previous, mailbox: mailbox, interrupt: interrupt, resumingAfter: sequence)
        linkId.withLock { $0 = id }
        return result
    }

    func send(_ request: ChatRequest) async throws -> ResponseEnvelope {
        let result = await withUnsafeContinuation { continuation in
            submit(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// The one way a request of this transport enters the server (``send(_:)`` awaits it):
    /// `answer` is called exactly once with the response or the error, on whichever thread the
    /// request was done (see `ServerEngine.submit`); it must not block.
    func submit(_ request: ChatRequest, answer: @escaping @Sendable (Result<ResponseEnvelope, ChatError>) -> Void) {
        guard let id = linkId.withLock({ $0 }) else {
            return answer(.failure(.unavailable("not connected; call connect() first")))
        }
        engine.submit(request, from: device, linkId: id, answer: answer)
    }

    /// Whether this transport's connection is the device's current one (not ended, not taken
    /// over by another).
    var isCurrent: Bool {
        linkId.withLock { id in
            engine.core.withLock { core in id != nil && core.hub.linkId(of: device) == id }
        }
    }

    var lastEventSequence: Int {
        engine.core.withLock { $0.hub.lastSequence(of: device) }
    }

    /// While this transport's connection is the device's current one: every event queued for
    /// the device (``lastEventSequence``, held-back ones included). Otherwise only what was put
    /// on ``events``: the device's replay log goes on growing while it is away, and those events
    /// come only with a next connection — `ChatClient.synchronize()` must not wait for them.
    func lastQueuedEventSequence() async -> Int {
        linkId.withLock { id in
            engine.core.withLock { core in
                guard let id, core.hub.linkId(of: device) == id else { return mailbox.lastPostedSequence }
                return core.hub.lastSequence(of: device)
            }
        }
    }

    /// Reads the events without a task waiting between them, instead of ``events`` (for
    /// ``WireSession``): `ring` is called when events arrive while none are being read, then
    /// ``takeEvent()`` takes them until `.empty` (see `EventMailbox.readOnDemand(_:)`). `ring`
    /// must not block: it may run on the thread of the request that caused the event.
    /// - Precondition: ``events`` is not read.
    func readEventsOnDemand(_ ring: @escaping @Sendable () -> Void) {
        mailbox.readOnDemand(ring)?.run()
    }

    /// The next event for a reader on demand (see ``readEventsOnDemand(_:)``).
    func takeEvent() -> EventMailbox.Take { mailbox.take() }

    /// The reader on demand is done: no event is delivered to it again.
    func stopReading() { mailbox.cancel() }

    func disconnect() async {
        guard let id = linkId.withLock({ $0 }) else { return }
        engine.disconnect(device, linkId: id, reason: .requested)
    }
}
