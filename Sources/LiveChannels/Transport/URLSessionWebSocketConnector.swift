import ChatAPI
import Foundation
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``WebSocketConnector`` on URLSession's WebSocket task: the default connector of
/// ``WebSocketTransport`` on Apple platforms.
///
/// On Linux, URLSession's WebSocket task is not supported (libcurl without WebSockets): there
/// every connect throws `ChatError.unavailable`; use `NIOWebSocketConnector` from the
/// `LiveChannelsNIO` module of the `Server/` package instead.
public struct URLSessionWebSocketConnector: WebSocketConnector {
    private let session: URLSession
    /// The largest frame accepted from the server.
    private let maximumMessageSize: Int

    /// A connector on `session` (by default the shared one).
    public init(session: URLSession = .shared, maximumMessageSize: Int = 64 << 20) {
        self.session = session
        self.maximumMessageSize = maximumMessageSize
    }

    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        var urlRequest = URLRequest(url: request.url)
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.webSocketTask(with: urlRequest)
        task.maximumMessageSize = maximumMessageSize
        task.resume()
        // The handshake's outcome shows in the first exchange: a ping answered means open.
        do {
            try await Self.ping(task)
        } catch {
            let status = (task.response as? HTTPURLResponse)?.statusCode
            task.cancel(with: .goingAway, reason: nil)
            switch status {
            case 401?, 429?:
                // The task does not show the refusal's body: ask why with a plain GET.
                if let refusal = await request.refusal(session: session) { throw refusal }
                throw status == 401
                    ? ChatError.unauthorized("the server refused the token (HTTP 401)")
                    : ChatError.limitExceeded("too many devices connected for this user (HTTP 429)")
            default:
                throw ChatError.unavailable("cannot open a WebSocket to \(request.url): \(error.localizedDescription)")
            }
        }
        return URLSessionWebSocketConnection(task: task, pingInterval: request.pingInterval)
    }

    fileprivate static func ping(_ task: URLSessionWebSocketTask) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.sendPing { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}

/// An open URLSession WebSocket task: a receive loop feeding ``inbound`` and a ping loop.
private final class URLSessionWebSocketConnection: WebSocketConnection {
    let inbound: AsyncStream<WebSocketInbound>
    private let continuation: AsyncStream<WebSocketInbound>.Continuation
    private let task: URLSessionWebSocketTask
    /// Guards whether `.closed` was yielded (exactly one). Lock order: a leaf (see `LockRank`),
    /// as is ``pongs``'s.
    private let ended = Lock(false, rank: .leaf)
    /// Guards the number of pongs received.
    private let pongs = Lock(0, rank: .leaf)

    init(task: URLSessionWebSocketTask, pingInterval: Duration) {
        self.task = task
        (inbound, continuation) = AsyncStream.makeStream(of: WebSocketInbound.self)
        Task { [weak self] in await self?.receiveLoop() }
        Task { [weak self] in await self?.pingLoop(every: pingInterval) }
    }

    deinit {
        task.cancel(with: .goingAway, reason: nil)
        continuation.finish()
    }

    private func receiveLoop() async {
        while true {
            do {
                switch try await task.receive() {
                case .string(let text): continuation.yield(.text(text))
                case .data: await close(code: WireCloseCode.unsupportedData.rawValue, reason: "binary frame")
                @unknown default: break
                }
            } catch {
                let code = task.closeCode == .invalid ? nil : task.closeCode.rawValue
                let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? error.localizedDescription
                end(code: code, reason: reason)
                return
            }
        }
    }

    private func pingLoop(every interval: Duration) async {
        while !ended.withLock({ $0 }) {
            try? await Task.sleep(for: interval)
            let before = pongs.withLock { $0 }
            let task = task
            Task { [weak self] in
                try? await URLSessionWebSocketConnector.ping(task)
                self?.pongs.withLock { $0 += 1 }
            }
            try? await Task.sleep(for: interval)
            if pongs.withLock({ $0 }) == before && !ended.withLock({ $0 }) {
                task.cancel(with: .goingAway, reason: nil)
                end(code: nil, reason: "no pong within two ping intervals")
                return
            }
        }
    }

    private func end(code: Int?, reason: String) {
        guard
            ended.withLock({ (ended: inout Bool) -> Bool in
                defer { ended = true }; return !ended
            })
        else { return }
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }

    func send(_ text: String) async throws {
        try await task.send(.string(text))
    }

    func close(code: Int, reason: String) async {
        task.cancel(
            with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: Data(reason.utf8))
    }
}
