import ChatAPI
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import WSClient

/// A WebSocket of the load generator's own, on WSClient: while a measurement reads it, each
/// frame received is handed as its bytes to the measurement's reader, on the connection's own
/// reading task. No stream, task switch or `String` stands between a frame and the reader.
///
/// `chat-load requests` reads the frames of the floor and of `chat-server` through it. The SDK's
/// `NIOWebSocketConnector` hands every frame on through an `AsyncStream` as a `String`, which
/// took 16% of the generator's CPU at 64 senders. The generator shares the machine's two cores
/// with the server it measures, so what it spends is taken from the server: with this reader it
/// spends a fifth to 30% less per answer (Performance.md, "The load generator's own reader").
///
/// Before a reader is set (the protocol's hello, a channel made before the measurement), frames
/// wait for ``nextText()``. Frames must not be fragmented: the servers measured never do.
final class LoadSocket: Sendable {
    /// What a measurement does with each frame: called with its bytes, one frame at a time, in
    /// the order received, on the connection's reading task.
    typealias Reader = @Sendable (UnsafeRawBufferPointer) -> Void

    private struct State {
        var outbound: WebSocketOutboundWriter?
        /// Resumed once the connection is open (`nil`) or has failed to open.
        var opening: CheckedContinuation<Void, any Error>?
        var reader: Reader?
        /// Frames received with no reader, oldest first, and who waits for the next.
        var held: [String] = []
        var next: CheckedContinuation<String?, Never>?
        /// Why the connection ended, once it has.
        var ended: (any Error)?
        var isEnded: Bool { ended != nil }
    }

    private let state = Mutex(State())

    private init() {}

    /// A connection to `url` with `headers` on its upgrade request, once its handshake is done.
    ///
    /// - Throws: `ChatError.unavailable` when the connection cannot be opened.
    static func open(_ url: String, headers: HTTPFields = [:]) async throws -> LoadSocket {
        let socket = LoadSocket()
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: 1 << 24, additionalHeaders: headers, autoPing: .disabled)
        Task {
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: configuration, logger: Logger(label: "chat-load")
                ) { inbound, outbound, _ in
                    socket.opened(outbound)
                    for try await frame in inbound {
                        guard frame.opcode == .text, frame.fin else {
                            try await outbound.close(.unacceptableData, reason: "text frames, whole, only")
                            break
                        }
                        socket.received(frame.data)
                    }
                }
                socket.end(ChatError.unavailable("the connection to \(url) closed"))
            } catch {
                socket.end(ChatError.unavailable("the connection to \(url) failed: \(error)"))
            }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = socket.state.withLock { state -> Result<Void, any Error>? in
                if state.outbound != nil { return .success(()) }
                if let ended = state.ended { return .failure(ended) }
                state.opening = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
        return socket
    }

    private func opened(_ outbound: WebSocketOutboundWriter) {
        let waiter = state.withLock { state in
            state.outbound = outbound
            return state.opening.take()
        }
        waiter?.resume()
    }

    private func received(_ data: ByteBuffer) {
        let reader = state.withLock { $0.reader }
        if let reader {
            data.withUnsafeReadableBytes { reader($0) }
            return
        }
        let text = String(buffer: data)
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            if let waiter = state.next.take() { return waiter }
            state.held.append(text)
            return nil
        }
        waiter?.resume(returning: text)
    }

    private func end(_ error: any Error) {
        let (opening, next) = state.withLock { state in
            if state.ended == nil { state.ended = error }
            return (state.opening.take(), state.next.take())
        }
        opening?.resume(throwing: error)
        next?.resume(returning: nil)
    }

    /// The next frame received while no reader is set, as text; `nil` once the connection has
    /// ended with none left. One caller at a time.
    func nextText() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let ready = state.withLock { state -> String?? in
                if !state.held.isEmpty { return .some(state.held.removeFirst()) }
                if state.isEnded { return .some(nil) }
                state.next = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Hands every frame received from now on to `reader` (frames held before are dropped: a
    /// measurement starts on a quiet connection), until ``stopReading()``.
    func read(_ reader: @escaping Reader) {
        state.withLock { state in
            state.held.removeAll()
            state.reader = reader
        }
    }

    /// Frames received from now on wait for ``nextText()`` again. The reader is not called after
    /// this returns, except for a frame it is being handed at this moment.
    func stopReading() {
        state.withLock { $0.reader = nil }
    }

    /// Sends `text` as one text frame.
    ///
    /// - Throws: `ChatError.unavailable` once the connection has ended.
    func send(_ text: String) async throws {
        guard let outbound = state.withLock({ $0.isEnded ? nil : $0.outbound }) else {
            throw ChatError.unavailable("the connection has ended")
        }
        try await outbound.write(.text(text))
    }

    /// Closes the connection normally (1000).
    func close() async {
        guard let outbound = state.withLock({ $0.isEnded ? nil : $0.outbound }) else { return }
        try? await outbound.close(.normalClosure, reason: nil)
    }
}
