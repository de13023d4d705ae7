import NIOCore
import NIOWebSocket

/// ``FrameQueue``'s hands in the channel's pipeline, right after NIO's WebSocket frame
/// encoder: writes a batch of text frames with one flush, and watches the frames the library
/// writes past it, so that no data frame follows a close frame. No framing is done here: the
/// frames are NIO's `WebSocketFrame`s, encoded by NIO.
///
/// It shares the socket fairly with the library's writer (pings, pongs, the close): a batch is
/// written only while the channel is writable, and when it turns writable again the library's
/// handlers hear it first and the next batch waits for the next turn of the event loop.
///
/// - Threading: every member runs on the channel's event loop (`@unchecked Sendable` so that
///   the frame queue can hold it; it touches its state only there).
final class FrameQueueWriter: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    /// Inbound data passes untouched (never unwrapped): only writability is heard.
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The writer's place in the pipeline, while it is in one.
    private var context: ChannelHandlerContext?
    /// A close frame went out: the connection takes no more data frames.
    private var sawClose = false
    /// What to run once the channel is writable again (or the writer leaves the pipeline).
    private var whenWritable: (() -> Void)?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        whenWritable.take()?()
    }

    /// Passes the library's frames on, noting a close.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { sawClose = true }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        guard context.channel.isWritable, let waiting = whenWritable.take() else { return }
        // The library's writer resumes on this same news: it goes first (on this same loop:
        // the closure never leaves it).
        context.eventLoop.assumeIsolated().execute(waiting)
    }

    /// Runs `body` now if the channel is writable (or the writer is out of the pipeline, where
    /// a write fails at once); else once it turns writable.
    /// - Precondition: on the channel's event loop; at most one waits at a time.
    func onceWritable(_ body: @escaping () -> Void) {
        guard let context, !context.channel.isWritable else { return body() }
        whenWritable = body
    }

    /// Writes `frame` (a ping) and flushes, past the library's writer: the future succeeds once
    /// it reached the socket; it fails, like the library's writer, once a close frame went out
    /// or the connection is gone.
    /// - Precondition: on `eventLoop`, the channel's event loop.
    func writeControl(_ frame: WebSocketFrame, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        writeAndFlush(on: eventLoop) { context, promise in
            context.write(wrapOutboundOut(frame), promise: promise)
        }
    }

    /// Writes the text frames encoded one after another in `bytes` (frame i ends at
    /// `frameEnds[i]`), in order, and flushes once: the bytes are copied into one buffer, each
    /// frame's data a slice of it. The future succeeds once the last one reached the socket; it
    /// fails if the connection is gone or closing.
    /// - Precondition: on `eventLoop`, the channel's event loop; `frameEnds` ascending, the last
    ///   at most `bytes.count`.
    func write(_ bytes: [UInt8], frameEnds: [Int], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        writeAndFlush(on: eventLoop) { context, promise in
            let buffer = context.channel.allocator.buffer(bytes: bytes)
            var start = 0
            for (index, end) in frameEnds.enumerated() {
                let data = buffer.getSlice(at: start, length: end - start)!
                start = end
                let frame = WebSocketFrame(fin: true, opcode: .text, data: data)
                context.write(wrapOutboundOut(frame), promise: index == frameEnds.count - 1 ? promise : nil)
            }
        }
    }

    /// Runs `body` — which writes, completing the promise with its last write — then flushes
    /// once; fails at once when the handler left the pipeline or a close frame went out.
    private func writeAndFlush(
        on eventLoop: any EventLoop, _ body: (ChannelHandlerContext, EventLoopPromise<Void>) -> Void
    ) -> EventLoopFuture<Void> {
        guard let context else { return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        guard !sawClose else { return context.eventLoop.makeFailedFuture(ChannelError.outputClosed) }
        let promise = context.eventLoop.makePromise(of: Void.self)
        body(context, promise)
        context.flush()
        return promise.futureResult
    }
}
