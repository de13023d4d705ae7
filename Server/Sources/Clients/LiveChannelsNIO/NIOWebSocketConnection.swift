import ChatAPI
import LiveChannels
import NIOConcurrencyHelpers
import WSClient
import NIOWebSocket

/// One WSClient connection, seen as a `WebSocketConnection`: the client handler's outbound
/// writer for sending, its messages fed to ``inbound``.
final class NIOWebSocketConnection: WebSocketConnection {
    let inbound: AsyncStream<WebSocketInbound>
    private let continuation: AsyncStream<WebSocketInbound>.Continuation

    private enum Phase {
        case opening(CheckedContinuation<Void, any Error>?)
        case open(WebSocketOutboundWriter)
        case closed
    }

    /// Guards the phase (and the open continuation).
    private let phase = NIOLockedValueBox(Phase.opening(nil))
    /// Guards an error that ended the connection before it opened.
    private let openError = NIOLockedValueBox<(any Error)?>(nil)

    init() {
        (inbound, continuation) = AsyncStream.makeStream(of: WebSocketInbound.self)
    }

    /// The error that ended the connection before it opened, if one did.
    var openFailure: (any Error)? { openError.withLockedValue { $0 } }

    /// Returns once the handshake succeeded.
    /// - Throws: `ChatError.unavailable` when it failed.
    func waitUntilOpen(url: String) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let ready: Result<Void, any Error>? = phase.withLockedValue { phase in
                switch phase {
                case .opening: phase = .opening(waiter); return nil
                case .open: return .success(())
                case .closed:
                    let error = openError.withLockedValue { $0 }
                    return .failure(
                        ChatError.unavailable("cannot open a WebSocket to \(url): \(error.map { "\($0)" } ?? "closed")")
                    )
                }
            }
            if let ready { waiter.resume(with: ready) }
        }
    }

    func opened(_ outbound: WebSocketOutboundWriter) {
        let waiter = phase.withLockedValue { phase -> CheckedContinuation<Void, any Error>? in
            guard case .opening(let waiter) = phase else { return nil }
            phase = .open(outbound)
            return waiter
        }
        waiter?.resume()
    }

    func received(_ text: String) {
        continuation.yield(.text(text))
    }

    func closed(code: Int?, reason: String) {
        end(.closed(code: code, reason: reason), error: nil)
    }

    func failed(_ error: any Error) {
        end(.closed(code: nil, reason: "\(error)"), error: error)
    }

    /// Ends the connection with `error` if it is still opening; whether it was.
    func failOpening(_ error: any Error) -> Bool {
        guard phase.withLockedValue({ phase in if case .opening = phase { return true } else { return false } }) else {
            return false
        }
        failed(error)
        return true
    }

    private func end(_ last: WebSocketInbound, error: (any Error)?) {
        openError.withLockedValue { $0 = error }
        let previous = phase.withLockedValue { phase -> Phase in
            defer { phase = .closed }
            return phase
        }
        switch previous {
        case .opening(let waiter?):
            waiter.resume(
                throwing: ChatError.unavailable("cannot open the WebSocket: \(error.map { "\($0)" } ?? "closed")"))
        case .opening(nil), .closed:
            break
        case .open:
            continuation.yield(last)
        }
        continuation.finish()
    }

    func send(_ text: String) async throws {
        guard case .open(let outbound) = phase.withLockedValue({ $0 }) else {
            throw ChatError.unavailable("the WebSocket is closed")
        }
        try await outbound.write(.text(text))
    }

    func close(code: Int, reason: String) async {
        guard case .open(let outbound) = phase.withLockedValue({ $0 }) else { return }
        try? await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
    }
}
