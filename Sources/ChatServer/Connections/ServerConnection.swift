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
        guard let id = linkId.withLock({ $0 }) else {
            throw ChatError.unavailable("not connected; call connect() first")
        }
        switch engine.takeRequestFault(for: device) {
        case .fail(let error)?:
            throw error
        case .delay(let seconds)?:
            try await engine.clock.sleep(until: engine.clock.now + seconds)
        case .dropBeforeAnswer?:
            // The work is done (or refused) in full; the answer is lost with the connection.
            _ = try? await engine.handle(request, from: device, linkId: id)
            engine.dropConnection(device, linkId: id)
            throw ChatError.unavailable("the connection dropped before the answer arrived (injected fault)")
        case nil:
            break
        }
        return try await engine.handle(request, from: device, linkId: id)
    }

    /// ``send(_:)`` done at once, without suspending, when nothing can make the request wait
    /// (see `ServerEngine.handleAtOnce`): the response, and the storage ticket to pass to
    /// ``written(_:)`` before answering with it. `nil` when it could not be done at once —
    /// nothing was done: call ``send(_:)``.
    func sendAtOnce(_ request: ChatRequest) -> Result<(envelope: ResponseEnvelope, ticket: Int), ChatError>? {
        guard let id = linkId.withLock({ $0 }) else {
            return .failure(.unavailable("not connected; call connect() first"))
        }
        return engine.handleAtOnce(request, from: device, linkId: id)
    }

    /// ``send(_:)`` queued behind the request running at the server's lock, if one runs and
    /// nothing else can make this one wait (see `ServerEngine.handleWhenQueued`): no task waits
    /// for it; `done` gets the response and the storage ticket to pass to ``written(_:)``
    /// before answering with it (or the request's error), on the thread that runs the queue. It
    /// must not block. `false` when nothing was queued (or the device is not connected): call
    /// ``sendAtOnce(_:)`` or ``send(_:)``.
    func sendWhenQueued(
        _ request: ChatRequest,
        done: @escaping @Sendable (Result<(envelope: ResponseEnvelope, ticket: Int), ChatError>) -> Void
    ) -> Bool {
        guard let id = linkId.withLock({ $0 }) else { return false }
        return engine.handleWhenQueued(request, from: device, linkId: id, done: done)
    }

    /// Returns once the changes of `ticket` (a ``sendAtOnce(_:)``'s) are written to the
    /// storage (at once in memory).
    /// - Throws: `unavailable` when the write failed or the server closed.
    func written(_ ticket: Int) async throws(ChatError) {
        try await engine.written(ticket)
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
