import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// The text frames one connection has to send, written in batches: every frame queued while
/// the previous batch was being written goes out in the next one, with one hop to the channel's
/// event loop and one flush (one system call) for the lot — where writing through the library
/// costs a hop and a flush per frame.
///
/// Frames keep the order they were queued in. An idle connection's frame is written at once
/// (a batch of one): batching adds no latency, it only appears under load, when frames queue up
/// faster than the socket takes them.
///
/// Backpressure: a batch is written once the previous one has reached the socket, so a client
/// that stops reading holds the batches up; past `limit` frames queued, ``send(_:)`` waits — the
/// event pump waits with it, the device's mailbox fills and the server closes the connection as
/// too slow (4009), as before. So `limit` is kept small (32 by default): frames queued here are
/// frames the server's too-slow limit (`--max-pending-events`) does not see.
///
/// The frames are NIO's own `WebSocketFrame`s, encoded by NIO's frame encoder: the writer
/// (``FrameOutboxWriter``) sits in the pipeline right after it. Control frames (pings, the close)
/// still go through the library's writer; once a close frame has passed the writer, no data
/// frame follows it.
///
/// - Threading: thread-safe. ``send(_:)`` and ``drain()`` may be called from any task; the
///   writing itself runs on the channel's event loop.
final class FrameOutbox: Sendable {
    private struct State {
        var queued: [[UInt8]] = []
        /// A batch is being written (or a drain was scheduled).
        var isWriting = false
        /// No more frames are taken: the connection is closing, or a write failed.
        var isClosed = false
        /// Senders waiting for the queue to fall to `limit`.
        var senders: [CheckedContinuation<Void, Never>] = []
        /// Waiting for everything queued to be written (``drain()``).
        var drainers: [CheckedContinuation<Void, Never>] = []
    }

    /// The most frames queued before ``send(_:)`` waits.
    let limit: Int
    /// A batch holds frames up to about this many bytes (at least one frame): a batch waiting
    /// for a slow socket holds up the library's control frames no longer than that takes.
    static let batchBytes = 64 * 1_024
    private let state = NIOLockedValueBox(State())
    private let writer: FrameOutboxWriter
    private let eventLoop: any EventLoop

    private init(writer: FrameOutboxWriter, eventLoop: any EventLoop, limit: Int) {
        self.writer = writer
        self.eventLoop = eventLoop
        self.limit = limit
    }

    /// An outbox for `channel`, its writer placed right after NIO's WebSocket frame encoder;
    /// `nil` if the channel has no such encoder (it closed already).
    static func install(on channel: any Channel, limit: Int = 32) async -> FrameOutbox? {
        let writer = FrameOutboxWriter()
        let placed: Void? = try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let encoder = try operations.handler(type: WebSocketFrameEncoder.self)
            try operations.addHandler(writer, position: .after(encoder))
        }.get()
        guard placed != nil else { return nil }
        return FrameOutbox(writer: writer, eventLoop: channel.eventLoop, limit: limit)
    }

    /// Queues one text frame (its UTF-8 bytes); returns at once unless `limit` frames are
    /// queued, then once the queue has room. A frame sent after ``close()`` is dropped.
    /// - Complexity: amortized O(1) besides the copy into the frame's buffer when written.
    func send(_ text: [UInt8]) async {
        let (startsWriting, mustWait) = state.withLockedValue { state -> (Bool, Bool) in
            guard !state.isClosed else { return (false, false) }
            state.queued.append(text)
            let starts = !state.isWriting
            state.isWriting = true
            return (starts, state.queued.count > limit)
        }
        if startsWriting { eventLoop.execute { self.writeNextBatch() } }
        guard mustWait else { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLockedValue { state -> Bool in
                if state.isClosed || state.queued.count <= limit { return true }
                state.senders.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Takes no more frames, and returns once every frame queued before has been written (or
    /// failed to be: the connection dropped). What a close frame must wait for.
    func close() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLockedValue { state -> Bool in
                state.isClosed = true
                if !state.isWriting { return true }
                state.drainers.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Writes a ping with `payload` at once, ahead of the frames queued (it is not a data
    /// frame: no batch waits for it, nor it for them). The future fails once a close frame went
    /// out or the connection is gone.
    /// - Precondition: on the channel's event loop.
    func ping(_ payload: ByteBuffer) -> EventLoopFuture<Void> {
        writer.writeControl(WebSocketFrame(fin: true, opcode: .ping, data: payload), on: eventLoop)
    }

    /// On the event loop: once the channel is writable, writes what is queued as one batch (up
    /// to ``batchBytes``), then — once it reached the socket — the next, until the queue is
    /// empty.
    private func writeNextBatch() {
        writer.onceWritable { self.writeBatch() }
    }

    private func writeBatch() {
        let (batch, senders, drainers) = state.withLockedValue {
            state -> ([[UInt8]], [CheckedContinuation<Void, Never>], [CheckedContinuation<Void, Never>]) in
            var bytes = 0
            let count = state.queued.prefix { text in
                defer { bytes += text.count }
                return bytes < Self.batchBytes
            }.count
            let batch = Array(state.queued[..<count])
            state.queued.removeFirst(count)
            let senders = state.queued.count <= limit ? state.senders : []
            if !senders.isEmpty { state.senders = [] }
            guard !batch.isEmpty else {
                state.isWriting = false
                defer { state.drainers = [] }
                return ([], senders, state.drainers)
            }
            return (batch, senders, [])
        }
        for sender in senders { sender.resume() }
        for drainer in drainers { drainer.resume() }
        guard !batch.isEmpty else { return }
        writer.write(batch, on: eventLoop).whenComplete { result in
            if case .failure = result { self.stop() }
            self.writeNextBatch()
        }
    }

    /// A write failed (the connection is gone): drop what is queued, take nothing more.
    private func stop() {
        let senders = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.isClosed = true
            state.queued = []
            defer { state.senders = [] }
            return state.senders
        }
        for sender in senders { sender.resume() }
    }
}
