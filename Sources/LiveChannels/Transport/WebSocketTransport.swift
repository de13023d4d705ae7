import ChatAPI
import Foundation
import Locking

/// A ``ChatTransport`` to a networked server (`chat-server`) over WebSocket, speaking the wire
/// protocol of `Docs/Protocol.md`: give it to a `ChatClient` in place of the embedded server's
/// connection and everything else is unchanged.
///
/// ```swift
/// let transport = WebSocketTransport(
///     url: URL(string: "ws://127.0.0.1:8080/v1/connect")!,
///     userId: "alice", deviceId: "phone",
///     token: { try await myBackend.chatToken(for: "alice") })
/// let client = ChatClient(transport: transport)
/// ```
///
/// - **Tokens.** `token` is asked at every connect and reconnect, so an expired token is
///   replaced. A token the server refused (close 4001, HTTP 401) makes `connect` throw
///   `ChatError.unauthorized`; the same token is not sent again — `connect` throws at once until
///   the provider returns a different one. A token that expires while connected ends the
///   connection (`.connectionLost(.unauthorized)`), and the client's reconnect asks for a new one.
/// - **Requests** carry ids; responses are matched to them, so many may be in flight.
///   Responses carry their position in the event stream (``ResponseEnvelope/position``), as
///   the embedded transport's do, so the client's ordering rule holds over the network.
/// - **Heartbeats.** The server pings; the connector pings too (every `pingInterval`), so a
///   dead connection is detected within two intervals and ends with `.connectionLost`.
/// - A server that cannot be reached: `ChatError.unavailable`, which the client's
///   `ReconnectPolicy` retries.
///
/// - Threading: every member is thread-safe.
public final class WebSocketTransport: ChatTransport {
    public let userId: String
    public let deviceId: String
    public let events: AsyncStream<ConnectionEvent>

    private let continuation: AsyncStream<ConnectionEvent>.Continuation
    private let url: URL
    private let token: @Sendable () async throws -> String
    private let connector: any WebSocketConnector
    private let pingInterval: Duration

    /// The current connection, with the number that tells it from earlier ones.
    private struct Link {
        let connection: any WebSocketConnection
        let generation: UInt64
        let token: String
        /// Whether `welcome` arrived: requests go out only then (a request before `hello`
        /// would break the protocol).
        var isOpen = false
    }

    private struct State {
        var link: Link?
        var generation: UInt64 = 0
        var nextRequestId = 0
        var pending: [Int: CheckedContinuation<ResponseEnvelope, any Error>] = [:]
        var lastEventSequence = 0
        /// A token the server refused: not sent again.
        var refusedToken: String?
    }

    /// Guards the connection, the requests awaiting answers and the event sequence; events are
    /// yielded under it, so a `.disconnected` is never followed by an event of its connection.
    /// Lock order: a leaf (see `LockRank`).
    private let state = Lock(State(), rank: .leaf)
    /// Connects run one at a time, in call order, as the embedded transport's do (a reconnect
    /// racing an explicit `connect()` must not leave two connections, one of them orphaned).
    private let connects = RequestSequence()

    /// A transport to the server at `url` (`ws://HOST:PORT/v1/connect`) for `userId` on
    /// `deviceId`.
    ///
    /// - Parameters:
    ///   - url: the server's connect URL, `ws://HOST:PORT/v1/connect` (or `wss://`).
    ///   - userId: the user to act for: the token's `sub` must be this user.
    ///   - deviceId: this device (sent as the `device` query parameter).
    ///   - token: returns the token to connect with; asked at every connect.
    ///   - connector: opens the WebSocket; ``URLSessionWebSocketConnector`` by default. On Linux
    ///     pass `NIOWebSocketConnector()` (module `LiveChannelsNIO`).
    ///   - pingInterval: how often the connection pings the server (two intervals without a
    ///     pong end it).
    public init(
        url: URL, userId: String, deviceId: String = "default",
        token: @escaping @Sendable () async throws -> String,
        connector: any WebSocketConnector = URLSessionWebSocketConnector(),
        pingInterval: Duration = .seconds(15)
    ) {
        self.url = url
        self.userId = userId
        self.deviceId = deviceId
        self.token = token
        self.connector = connector
        self.pingInterval = pingInterval
        (events, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self, bufferingPolicy: .unbounded)
    }

    deinit {
        if let connection = state.withLock({ $0.link?.connection }) {
            Task { await connection.close(code: WireCloseCode.normal.rawValue, reason: "") }
        }
        continuation.finish()
    }

    public var lastEventSequence: Int { state.withLock { $0.lastEventSequence } }

    // MARK: Connecting

    public func connect(resumingAfter sequence: Int?) async throws -> ConnectResult {
        try await connects.submit { try await self.connectNow(resumingAfter: sequence) }.value
    }

    private func connectNow(resumingAfter sequence: Int?) async throws -> ConnectResult {
        let token: String
        do {
            token = try await self.token()
        } catch let error as ChatError {
            throw error
        } catch {
            throw ChatError.unauthorized("the token provider failed: \(error)")
        }
        if state.withLock({ $0.refusedToken == token }) {
            throw ChatError.unauthorized(
                "the server refused this token before; the token provider must return a new one")
        }
        await disconnect()
        let connection = try await open(with: token)
        let generation = state.withLock { state -> UInt64 in
            state.generation += 1
            state.link = Link(connection: connection, generation: state.generation, token: token)
            return state.generation
        }
        return try await withCheckedThrowingContinuation { handshake in
            Task { await self.read(connection, generation: generation, handshake: handshake, resumeAfter: sequence) }
        }
    }

    /// Opens the WebSocket (the handshake's refusals become `ChatError`s).
    private func open(with token: String) async throws -> any WebSocketConnection {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let query = (components?.queryItems ?? []).filter { $0.name != "device" }
        components?.queryItems = query + [URLQueryItem(name: "device", value: deviceId)]
        guard let target = components?.url else {
            throw ChatError.invalidArgument(field: "url", reason: "\(url) cannot take a device query")
        }
        let request = WebSocketRequest(
            url: target, headers: ["Authorization": "Bearer \(token)"], pingInterval: pingInterval)
        do {
            return try await connector.connect(request)
        } catch let error as ChatError {
            if case .unauthorized = error { state.withLock { $0.refusedToken = token } }
            throw error
        } catch {
            throw ChatError.unavailable("cannot reach \(url): \(error)")
        }
    }

    /// Reads one connection to its end: `hello` → `welcome` (resuming `handshake`), then
    /// events, responses and failures, then the close.
    private func read(
        _ connection: any WebSocketConnection, generation: UInt64,
        handshake: CheckedContinuation<ConnectResult, any Error>, resumeAfter: Int?
    ) async {
        var handshake: CheckedContinuation<ConnectResult, any Error>? = handshake
        /// Fails `connect` with `error` and drops the connection, which never opened (so no
        /// `.disconnected` is yielded for it).
        func failHandshake(_ error: ChatError, closing code: WireCloseCode) async {
            handshake?.resume(throwing: error)
            handshake = nil
            state.withLock { state in if state.link?.generation == generation { state.link = nil } }
            await connection.close(code: code.rawValue, reason: "")
        }
        // A server that refuses the connection closes it at once (4001): hello may fail to go
        // out, and the close that follows says why.
        try? await connection.send(
            WireCodec.encode(.hello(protocolVersion: WireProtocol.version, resumeAfter: resumeAfter)))
        for await item in connection.inbound {
            switch item {
            case .text(let text):
                let frame: WireFrame
                do {
                    frame = try WireCodec.decode(text)
                } catch {
                    await protocolViolation(connection, generation: generation, handshake: &handshake, "\(error)")
                    return
                }
                if let pending = handshake {
                    guard case .welcome(_, let result) = frame else {
                        await failHandshake(
                            .unavailable("the server answered hello with '\(frame.type)'"), closing: .protocolError)
                        return
                    }
                    guard result.currentUser.userId == userId else {
                        await failHandshake(
                            .unauthorized("the token signs in '\(result.currentUser.userId)', not '\(userId)'"),
                            closing: .normal)
                        return
                    }
                    handshake = nil
                    state.withLock { state in
                        guard state.link?.generation == generation else { return }
                        state.link?.isOpen = true
                        if result.status != .resumed { state.lastEventSequence = result.lastSequence }
                    }
                    pending.resume(returning: result)
                    continue
                }
                switch frame {
                case .event(let envelope):
                    state.withLock { state in
                        guard state.link?.generation == generation else { return }
                        state.lastEventSequence = max(state.lastEventSequence, envelope.sequence)
                        continuation.yield(.event(envelope))
                    }
                case .response(let id, let envelope):
                    state.withLock { $0.pending.removeValue(forKey: id) }?.resume(returning: envelope)
                case .failure(let id, let error):
                    state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: error)
                case .hello, .welcome, .request:
                    await protocolViolation(
                        connection, generation: generation, handshake: &handshake, "unexpected '\(frame.type)'")
                    return
                }
            case .closed(let code, let reason):
                if code == WireCloseCode.unauthorized.rawValue {
                    state.withLock { state in
                        if state.link?.generation == generation { state.refusedToken = state.link?.token }
                    }
                }
                if let pending = handshake {
                    handshake = nil
                    state.withLock { state in if state.link?.generation == generation { state.link = nil } }
                    pending.resume(throwing: Self.handshakeError(code: code, reason: reason))
                    return
                }
                end(generation, reason: WireCloseCode.disconnectReason(forCode: code, reason: reason))
                return
            }
        }
        if let pending = handshake {
            pending.resume(throwing: ChatError.unavailable("the connection ended before welcome"))
            state.withLock { state in if state.link?.generation == generation { state.link = nil } }
            return
        }
        end(generation, reason: .connectionLost(.unavailable("the connection dropped")))
    }

    /// What a close before `welcome` means to `connect`.
    private static func handshakeError(code: Int?, reason: String) -> ChatError {
        switch code.flatMap(WireCloseCode.init(rawValue:)) {
        case .unauthorized?: .unauthorized(reason.isEmpty ? "the server refused the token" : reason)
        case .unsupportedProtocol?: .notAllowed("the server does not speak protocol \(WireProtocol.version)")
        default:
            .unavailable(
                "the server closed the connection during the handshake (\(code.map(String.init) ?? "no code")) \(reason)"
            )
        }
    }

    /// The server sent something that is not the protocol: close with 1002 and end.
    private func protocolViolation(
        _ connection: any WebSocketConnection, generation: UInt64,
        handshake: inout CheckedContinuation<ConnectResult, any Error>?, _ reason: String
    ) async {
        handshake?.resume(throwing: ChatError.unavailable("the server does not speak the protocol: \(reason)"))
        handshake = nil
        end(generation, reason: .connectionLost(.unavailable("the server broke the protocol: \(reason)")))
        await connection.close(code: WireCloseCode.protocolError.rawValue, reason: "")
    }

    /// Ends connection `generation` (if still current): fails its waiting requests and yields
    /// `.disconnected(reason)`.
    private func end(_ generation: UInt64, reason: DisconnectReason) {
        let pending = state.withLock { state -> [CheckedContinuation<ResponseEnvelope, any Error>] in
            guard state.link?.generation == generation else { return [] }
            state.link = nil
            continuation.yield(.disconnected(reason))
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for request in pending {
            request.resume(throwing: ChatError.unavailable("the connection ended before the answer"))
        }
    }

    public func disconnect() async {
        guard let link = state.withLock({ $0.link }) else { return }
        end(link.generation, reason: .requested)
        await link.connection.close(code: WireCloseCode.normal.rawValue, reason: "")
    }

    // MARK: Requests

    public func send(_ request: ChatRequest) async throws -> ResponseEnvelope {
        let (link, id) = try state.withLock { state throws(ChatError) -> (Link, Int) in
            guard let link = state.link, link.isOpen else { throw .unavailable("not connected; call connect() first") }
            let id = state.nextRequestId
            state.nextRequestId = id == WireProtocol.maximumRequestId ? 0 : id + 1
            return (link, id)
        }
        let text: String
        do {
            text = try WireCodec.encode(.request(id: id, request: request))
        } catch {
            throw ChatError.invalidArgument(field: "request", reason: "cannot be encoded: \(error)")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (answer: CheckedContinuation<ResponseEnvelope, any Error>) in
                let registered = state.withLock { state in
                    guard state.link?.generation == link.generation else { return false }
                    state.pending[id] = answer
                    return true
                }
                guard registered else {
                    answer.resume(throwing: ChatError.unavailable("the connection ended before the request was sent"))
                    return
                }
                Task {
                    do {
                        try await link.connection.send(text)
                    } catch {
                        self.state.withLock { $0.pending.removeValue(forKey: id) }?
                            .resume(throwing: ChatError.unavailable("the request could not be sent: \(error)"))
                    }
                }
            }
        } onCancel: {
            state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Asks the server how far this device's event stream goes: the position of a small
    /// request's answer (events queued on the server but still on their way are counted).
    public func lastQueuedEventSequence() async -> Int {
        guard let envelope = try? await send(.getUser(userId: userId)) else { return lastEventSequence }
        return max(envelope.position, lastEventSequence)
    }
}
