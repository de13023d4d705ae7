import ChatAPI
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// The text frames one connection has to send, encoded and written in batches: every frame
/// queued while the previous batch was being written goes out in the next one, with one hop to
/// the channel's event loop and one flush (one system call) for the lot — where writing
/// through the library costs a hop and a flush per frame.
///
/// Frames are queued as values (``QueuedFrame``: a `WireFrame` at the gateway) and encoded on
/// the event loop, one after another into one buffer per batch, each frame's data a slice of
/// it: no array nor buffer of its own per frame, and the memory is taken and given back on the
/// same thread. A channel value an earlier frame of the batch wrote (the events of one change
/// share one) is copied from there, not encoded again (``ChatAPI/WireFrameBatch``). A frame that cannot be encoded is not written: `unencodable` hears of it (the
/// gateway closes the connection with 1011).
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
/// (``FrameQueueWriter``) sits in the pipeline right after it. Control frames (pings, the close)
/// still go through the library's writer; once a close frame has passed the writer, no data
/// frame follows it.
///
/// - Threading: thread-safe. ``send(_:)`` and ``close()`` may be called from any task; the
///   encoding and writing run on the channel's event loop.
final class FrameQueue<Frame: QueuedFrame>: Sendable {
    private struct State {
        var queued: [Frame] = []
        /// The array of the batch taken before, emptied with its room kept: the next batch's
        /// queue, so that a busy connection's queue does not grow from nothing at every batch.
        var spare: [Frame] = []
        /// A batch is being written (or a drain was scheduled).
        var isWriting = false
        /// No more frames are taken: the connection is closing, or a write failed.
        var isClosed = false
        /// Senders waiting for the queue to fall to `limit`.
        var senders: [CheckedContinuation<Void, Never>] = []
        /// Waiting for everything queued to be written (``close()``).
        var drainers: [CheckedContinuation<Void, Never>] = []
    }

    /// The most frames queued before ``send(_:)`` waits.
    let limit: Int
    /// A batch holds frames up to about this many bytes (at least one frame): a batch waiting
    /// for a slow socket holds up the library's control frames no longer than that takes.
    static var batchBytes: Int { 64 * 1_024 }
    /// The most frames a kept spare array has room for (a larger one is let go).
    static var spareCapacity: Int { 64 }
    private let state = NIOLockedValueBox(State())
    private let writer: FrameQueueWriter
    private let eventLoop: any EventLoop
    private let unencodable: @Sendable () -> Void

    private init(
        writer: FrameQueueWriter, eventLoop: any EventLoop, limit: Int, unencodable: @escaping @Sendable () -> Void
    ) {
        self.writer = writer
        self.eventLoop = eventLoop
        self.limit = limit
        self.unencodable = unencodable
    }

    /// A frame queue for `channel`, its writer placed right after NIO's WebSocket frame encoder;
    /// `nil` if the channel has no such encoder (it closed already). `unencodable` is called
    /// (on the event loop) for each frame that could not be encoded, and so was not written.
    static func install(
        on channel: any NIOCore.Channel, limit: Int = 32, unencodable: @escaping @Sendable () -> Void = {}
    ) async -> FrameQueue? {
        let writer = FrameQueueWriter()
        let placed: Void? = try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let encoder = try operations.handler(type: WebSocketFrameEncoder.self)
            try operations.addHandler(writer, position: .after(encoder))
        }.get()
        guard placed != nil else { return nil }
        return FrameQueue(writer: writer, eventLoop: channel.eventLoop, limit: limit, unencodable: unencodable)
    }

    /// Queues one text frame; returns at once unless `limit` frames are queued, then once the
    /// queue has room. A frame sent after ``close()`` is dropped.
    /// - Complexity: amortized O(1); the frame is encoded when its batch is written.
    func send(_ frame: Frame) async {
        let (startsWriting, mustWait) = state.withLockedValue { state -> (Bool, Bool) in
            guard !state.isClosed else { return (false, false) }
            state.queued.append(frame)
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

    /// Queues one text frame without waiting if fewer than `limit` are queued; `false` — the
    /// frame not queued — when the queue is full (then ``send(_:)`` it, which waits for room).
    /// A frame queued after ``close()`` is dropped (`true`).
    /// - Complexity: amortized O(1); the frame is encoded when its batch is written.
    func sendIfRoom(_ frame: Frame) -> Bool {
        let (queued, startsWriting) = state.withLockedValue { state -> (Bool, Bool) in
            guard !state.isClosed else { return (true, false) }
            guard state.queued.count < limit else { return (false, false) }
            state.queued.append(frame)
            defer { state.isWriting = true }
            return (true, !state.isWriting)
        }
        if startsWriting { eventLoop.execute { self.writeNextBatch() } }
        return queued
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
        // Everything queued is taken at once. An empty queue ends the writing, and whoever
        // waits for room or for the queue to drain is told (in the same hold: a frame queued
        // after it starts a new writing, which a later ``close()`` waits for).
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var taken = state.withLockedValue { state -> [Frame] in
            guard state.queued.isEmpty else {
                var taken: [Frame] = []
                swap(&taken, &state.spare)
                swap(&taken, &state.queued)
                return taken
            }
            state.isWriting = false
            idleWaiters = state.senders + state.drainers
            (state.senders, state.drainers) = ([], [])
            return []
        }
        guard !taken.isEmpty else {
            for waiter in idleWaiters { waiter.resume() }
            return
        }
        // Encoded one after another into one buffer, up to about `batchBytes`.
        var batch = WireFrameBatch(capacity: 2_048)
        var ends: [Int] = []
        ends.reserveCapacity(min(taken.count, 16))
        var used = 0
        var failures = 0
        while used < taken.count, batch.count < Self.batchBytes {
            do {
                try taken[used].encode(appendingTo: &batch)
                ends.append(batch.count)
            } catch {
                failures += 1
            }
            used += 1
        }
        // What does not fit goes back to the front of the queue, for the next batch; the
        // emptied array is the next batch's queue (unless it grew large).
        let leftovers = used < taken.count ? Array(taken[used...]) : []
        taken.removeAll(keepingCapacity: true)
        let senders = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            if !leftovers.isEmpty { state.queued.insert(contentsOf: leftovers, at: 0) }
            if state.spare.capacity == 0, taken.capacity <= Self.spareCapacity { swap(&state.spare, &taken) }
            guard state.queued.count <= limit, !state.senders.isEmpty else { return [] }
            defer { state.senders = [] }
            return state.senders
        }
        for sender in senders { sender.resume() }
        for _ in 0..<failures { unencodable() }
        guard !ends.isEmpty else {
            // Nothing in this batch could be encoded: on to the next (on a later turn).
            eventLoop.execute { self.writeNextBatch() }
            return
        }
        writer.write(batch.takeBytes(), frameEnds: ends, on: eventLoop).whenComplete { result in
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
