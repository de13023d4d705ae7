import NIOCore

/// The first handler of a connection, until the first request line has arrived whole: a
/// request line longer than ``maximumBytes`` (a 100 kB target) is answered `414 URI Too Long`
/// and the connection closed, instead of leaving it open with nothing said. Once the line's end
/// is seen the handler removes itself, so later bytes (a body, a WebSocket) pay nothing.
///
/// Later requests of a kept-alive connection are bounded by the HTTP decoder's header limits
/// (answered `431` by ``MalformedRequestAnswer``'s rules or closed).
final class RequestLineLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest request line taken: 16 KiB (nginx's default buffer for one is 8 KiB).
    static let maximumBytes = 16 * 1024

    private var seen = 0
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        let buffer = Self.unwrapInboundIn(data)
        if buffer.readableBytesView.contains(UInt8(ascii: "\n")) {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        seen += buffer.readableBytes
        guard seen > Self.maximumBytes else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        let answer = "HTTP/1.1 414 URI Too Long\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        LingeringClose.answer(Self.wrapOutboundOut(ByteBuffer(string: answer)), on: context)
    }
}
