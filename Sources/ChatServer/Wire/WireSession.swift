import ChatAPI
import Foundation
import Locking

/// One connection of the wire protocol (`Docs/Protocol.md`), without the network: text frames
/// in, ``WireOutput`` out, over an embedded connection to the server — the same door the
/// in-process transport is, so every rule and every fault injection applies unchanged.
///
/// A network front (`ChatGateway`) authenticates the user, then feeds each frame it reads to
/// ``receive(_:)`` and performs what `output` asks; tests drive it directly.
///
/// - `hello` first (anything else closes with 1002; another protocol version with 4010), then
///   `welcome` with the connect result.
/// - Requests are handled concurrently, as calls of the embedded transport from several tasks
///   are (one delayed by fault injection holds up no other), each answered by a `response` or
///   `failure` with its `id`; a request that cannot be decoded gets a `failure`
///   (`invalidArgument`), a bad `id` or a frame that is not the protocol closes with 1002.
/// - The device's events are sent as `event` frames as they are queued. A device taken over
///   by another connection closes with 4003; one too slow to take its events
///   (``ServerConfiguration/maxPendingEvents``) with 4009; one whose requests kept being
///   refused (``ServerConfiguration/requestsPerSecond``) with 4008; a dropped engine
///   connection (fault injection, a closed server) with 1011.
///
/// - Threading: every member is thread-safe; `receive` is meant to be called by one reader, in
///   frame order.
public final class WireSession: Sendable {
    private let server: ChatServer
    private let userId: String
    private let deviceId: String
    private let output: @Sendable (WireOutput) async -> Void
    /// Queues a frame to send without waiting, if the network front can and has room (see
    /// ``init``).
    let queueFrame: (@Sendable (WireFrame) -> Bool)?
    let record: @Sendable (Record) -> Void

    /// What a session did, for a network front's metrics.
    public enum Record: Sendable, Hashable {
        /// A request frame arrived.
        case request
        /// An event frame went out.
        case event
        /// A request was answered with a failure.
        case failure(ChatError)
        /// The session closed the connection with this code.
        case closed(code: Int)
    }
    private enum Phase {
        case awaitingHello
        /// Events are read on demand: a task forwards each burst of them (none waits between).
        case open(ServerConnection)
        case closed
    }

    /// Guards the session's phase. Lock order: a leaf (see `LockRank`).
    private let phase = Lock(Phase.awaitingHello, rank: .leaf)
    /// The requests being answered, whoever waits for them all to be, and whether new requests
    /// are ignored (the connection is closing for too many refusals). Lock order: a leaf.
    let answers = Lock((inFlight: WorkInFlight(), ignoring: false), rank: .leaf)
    /// The closes under way (at most one writes its frame; the others find the session closed),
    /// and who waits for them (``end()``). Lock order: a leaf.
    private let closing = Lock(WorkInFlight(), rank: .leaf)

    /// A session for `userId` (already authenticated) on `deviceId`; `output` performs what the
    /// session asks (it may be called from several tasks at once); `record` hears what it did.
    ///
    /// `queueFrame`, when given, queues a frame to send without waiting if the front has room
    /// for it, in order with the frames `output` sends, and returns whether it did (`false`:
    /// the session sends it through `output`, which waits for room); it may be called on any
    /// thread and must not block. With it, an answer and a burst of events are queued from the
    /// thread that has them, without a task of their own; without it, every answer and every
    /// burst is sent by a task.
    public init(
        server: ChatServer, userId: String, deviceId: String,
        record: @escaping @Sendable (Record) -> Void = { _ in },
        queueFrame: (@Sendable (WireFrame) -> Bool)? = nil,
        output: @escaping @Sendable (WireOutput) async -> Void
    ) {
        self.server = server
        self.userId = userId
        self.deviceId = deviceId
        self.record = record
        self.queueFrame = queueFrame
        self.output = output
    }

    /// Whether the session has ended (closed by either side).
    public var isClosed: Bool {
        phase.withLock { if case .closed = $0 { true } else { false } }
    }

    /// Handles one text frame from the client.
    public func receive(_ text: String) async {
        let frame: WireFrame
        do {
            frame = try WireCodec.decode(text)
        } catch {
            if case .badRequest(let id, let failure) = error, case .open = phase.withLock({ $0 }) {
                record(.request)
                record(.failure(failure))
                await send(.failure(id: id, error: failure))
            } else {
                await close(code: WireCloseCode.protocolError.rawValue, reason: "\(error)")
            }
            return
        }
        switch (frame, phase.withLock { $0 }) {
        case (.hello(let version, let resumeAfter), .awaitingHello):
            guard version == WireProtocol.version else {
                await close(
                    code: WireCloseCode.unsupportedProtocol.rawValue,
                    reason: "protocol \(version) is not supported; this server speaks \(WireProtocol.version)")
                return
            }
            await open(resumingAfter: resumeAfter)
        case (.request(let id, let request), .open(let transport)):
            let taken = answers.withLock { answers -> Bool in
                if answers.ignoring { return false }
                answers.inFlight.start()
                return true
            }
            guard taken else { return }
            record(.request)
            // Run here when nothing else runs at the server's lock, queued behind the request
            // that runs (answered from its thread) or on a task when it must wait: no task waits
            // for most requests.
            transport.submit(request) { [self] result in answer(result, id: id, on: transport) }
        case (_, .closed):
            return
        case (_, .awaitingHello):
            await close(code: WireCloseCode.protocolError.rawValue, reason: "the first frame must be hello")
        default:
            await close(
                code: WireCloseCode.protocolError.rawValue, reason: "a client does not send '\(frame.type)' here")
        }
    }

    /// Handles a binary frame: not the protocol (close 1003).
    public func receiveBinary() async {
        await close(code: WireCloseCode.unsupportedData.rawValue, reason: "the protocol is text frames only")
    }

    /// The connection ended (the client closed it, or the network): the device disconnects
    /// from the server (its reading and typing stop). Idempotent. When the session is writing
    /// its close frame, returns once it is written: a network front that closes the socket
    /// after `end()` (with its own code) never overtakes the session's close and its code.
    public func end() async {
        await closeWritten()
        await release(markClosed())
    }

    /// Returns once no close frame is being written.
    private func closeWritten() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !closing.withLock({ $0.wait(continuation) }) { continuation.resume() }
        }
    }

    /// Closes the connection with `code` (and ends the session). Idempotent: only the first
    /// close is sent.
    public func close(code: Int, reason: String) async {
        // Marked as writing before the session is marked closed: whoever sees it closed (the
        // network front, then ``end()``) sees the close being written.
        closing.withLock { $0.start() }
        let previous = markClosed()
        if case .closed = previous {
            closeFrameDone()
            return
        }
        record(.closed(code: code))
        // A close frame's reason holds at most 123 bytes.
        var limited = reason
        while limited.utf8.count > 123 { limited.removeLast() }
        // Sent before the events stop: the forwarding of a burst itself may be the caller.
        await output(.close(code: code, reason: limited))
        closeFrameDone()
        await release(previous)
    }

    /// The close frame is written (or another close wrote it): wakes whoever waits in ``end()``.
    private func closeFrameDone() {
        for waiter in closing.withLock({ $0.finish() }) { waiter.resume() }
    }

    /// Marks the session closed; returns what it was.
    private func markClosed() -> Phase {
        phase.withLock { phase -> Phase in
            defer { phase = .closed }
            return phase
        }
    }

    /// Disconnects the device and stops the events of a session that was `previous`.
    private func release(_ previous: Phase) async {
        if case .open(let transport) = previous {
            await transport.disconnect()
            transport.stopReading()
        }
    }

    /// Hands `frame` to the network front, which encodes it as it writes it (see
    /// ``WireOutput/frame(_:)``).
    func send(_ frame: WireFrame) async {
        await output(.frame(frame))
    }

    private func open(resumingAfter sequence: Int?) async {
        // The ends that refuse the client (too slow, too many refusals) are heard at once, not
        // only after the events queued before them: a client that stopped reading (its socket
        // full, the forwarding of its events waiting on a write) is still closed with its code. Every other end
        // (a drop, a takeover, the server closing) comes through the event stream, after the
        // events before it, so a client that reads gets them all first.
        let transport = server.connection(userId: userId, deviceId: deviceId) { [weak self] reason in
            guard let self else { return }
            switch reason {
            case .connectionLost(.limitExceeded), .connectionLost(.rateLimited):
                Task { await self.closeForEnd(reason) }
            default:
                break
            }
        }
        let result: ConnectResult
        do {
            result = try await transport.connect(resumingAfter: sequence)
        } catch let error as ChatError {
            await close(code: Self.closeCode(forConnectError: error), reason: error.description)
            return
        } catch {
            await close(code: WireCloseCode.internalError.rawValue, reason: "\(error)")
            return
        }
        await send(.welcome(protocolVersion: WireProtocol.version, result: result))
        let opened = phase.withLock { phase -> Bool in
            guard case .awaitingHello = phase else { return false }
            phase = .open(transport)
            return true
        }
        guard opened else {
            await transport.disconnect()
            return
        }
        // No task waits for events: each burst gets a task that forwards it and ends (detached,
        // as a request's: it needs no task-local value of whoever rang the doorbell). The
        // doorbell rings again only once that task found no more, so bursts never overlap and
        // frames keep the events' order. (Held weakly: the transport keeps the doorbell, and
        // a transport let go disconnects its device.)
        transport.readEventsOnDemand { [weak self, weak transport] in
            guard let self, let transport else { return }
            if let queueFrame = self.queueFrame {
                self.forwardEventsAtOnce(of: transport, queueFrame: queueFrame)
            } else {
                Task.detached { await self.forwardEvents(of: transport) }
            }
        }
    }

    private static func closeCode(forConnectError error: ChatError) -> Int {
        switch error {
        case .unauthorized: WireCloseCode.unauthorized.rawValue
        case .rateLimited: WireCloseCode.rateLimited.rawValue
        default: WireCloseCode.policyViolation.rawValue  // the connect itself was refused
        }
    }

    /// Forwards one burst of events: those buffered, until there are none (the doorbell then
    /// armed again) or the connection ended.
    private func forwardEvents(of transport: ServerConnection) async {
        while true {
            switch transport.takeEvent() {
            case .event(.event(let envelope)):
                record(.event)
                await send(.event(envelope))
            case .event(.disconnected(let reason)):
                await closeForEnd(reason)
                return
            case .empty, .end:
                return
            }
        }
    }

    /// Forwards a burst of events from the thread that rang (it must not block): each queued
    /// at once while the front has room; the first it has none for, and an end, are left to a
    /// task — which sends that event (waiting for room) and forwards the rest, or closes — so
    /// the events keep their order and a client that stops reading still fills its mailbox.
    private func forwardEventsAtOnce(
        of transport: ServerConnection, queueFrame: @escaping @Sendable (WireFrame) -> Bool
    ) {
        while true {
            switch transport.takeEvent() {
            case .event(.event(let envelope)):
                record(.event)
                let frame = WireFrame.event(envelope)
                if queueFrame(frame) { continue }
                Task.detached {
                    await self.send(frame)
                    await self.forwardEvents(of: transport)
                }
                return
            case .event(.disconnected(let reason)):
                Task.detached { await self.closeForEnd(reason) }
                return
            case .empty, .end:
                return
            }
        }
    }

    /// Closes the connection the way the server ended it (nothing for a requested end): 4003
    /// taken over, 4009 too slow, 4008 too many refusals (after the answers already being sent,
    /// the refusal that ended it among them), 1011 anything else. Idempotent, like ``close(code:reason:)``.
    private func closeForEnd(_ reason: DisconnectReason) async {
        switch reason {
        case .requested:
            return
        case .replaced:
            await close(
                code: WireCloseCode.replaced.rawValue, reason: "another connection of this user and device took over")
        case .connectionLost(.limitExceeded(let detail)):
            await close(code: WireCloseCode.tooSlow.rawValue, reason: detail)
        case .connectionLost(.rateLimited):
            await answersSent()
            await close(code: WireCloseCode.rateLimited.rawValue, reason: "too many requests refused in a row")
        case .connectionLost(let error):
            await close(code: WireCloseCode.internalError.rawValue, reason: "connection lost: \(error)")
        }
    }
}
