import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Locking

/// A ``WebSocketConnector`` without a network: each connection is a `WireSession` of the
/// embedded server, fed the client's text frames in order, its output delivered as the
/// connection's inbound frames. The wire protocol end to end — codec, handshake, ids, close
/// codes — minus the sockets (the `Server/` package's tests add those).
///
/// Tokens: `dev:USER` signs in USER; anything else is refused with close 4001, as
/// `chat-server --dev` refuses a bad token.
struct InMemoryWireConnector: WebSocketConnector {
    let server: ChatServer

    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        let connection = InMemoryWireConnection()
        let token = request.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        let device =
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "device" }?.value ?? ChatServer.defaultDeviceId
        guard token.hasPrefix("dev:"), token.count > 4 else {
            connection.deliver(
                .close(code: WireCloseCode.unauthorized.rawValue, reason: "the token is not a dev token"))
            return connection
        }
        let session = WireSession(server: server, userId: String(token.dropFirst(4)), deviceId: device) {
            [weak connection] output in connection?.deliver(output)
        }
        connection.start(session)
        return connection
    }
}

/// One in-memory connection: client → session in order, session → client as inbound frames.
final class InMemoryWireConnection: WebSocketConnection {
    let inbound: AsyncStream<WebSocketInbound>
    private let toClient: AsyncStream<WebSocketInbound>.Continuation
    private let toServer: AsyncStream<String>.Continuation
    private let toServerStream: AsyncStream<String>
    /// Guards whether the connection closed.
    private let closed = Lock(false)

    init() {
        (inbound, toClient) = AsyncStream.makeStream(of: WebSocketInbound.self)
        (toServerStream, toServer) = AsyncStream.makeStream(of: String.self)
    }

    func start(_ session: WireSession) {
        let frames = toServerStream
        Task {
            for await text in frames { await session.receive(text) }
            await session.end()
        }
    }

    /// Performs what the session asks.
    func deliver(_ output: WireOutput) {
        switch output {
        case .frame(let frame):
            // Encoded as a network front does, which closes with 1011 a frame it cannot encode.
            guard let text = try? WireCodec.encode(frame) else {
                end(code: WireCloseCode.internalError.rawValue, reason: "a frame could not be encoded")
                return
            }
            closed.withLock { closed in if !closed { toClient.yield(.text(text)) } }
        case .close(let code, let reason):
            end(code: code, reason: reason)
        }
    }

    private func end(code: Int?, reason: String) {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            if !closed { toClient.yield(.closed(code: code, reason: reason)) }
            return !closed
        }
        if first {
            toClient.finish()
            toServer.finish()
        }
    }

    func send(_ text: String) async throws {
        guard !closed.withLock({ $0 }) else { throw ChatError.unavailable("closed") }
        toServer.yield(text)
    }

    func close(code: Int, reason: String) async {
        end(code: code, reason: reason)
    }
}
