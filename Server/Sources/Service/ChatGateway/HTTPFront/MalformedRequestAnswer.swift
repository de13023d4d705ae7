import NIOCore
import NIOHTTP1

/// Sits after the HTTP decoder until a connection's first request head has been read: a first
/// request the decoder cannot read (a raw space or raw UTF-8 in its line, a broken header) is
/// answered `400 Bad Request`, one whose headers are too large `431 Request Header Fields Too
/// Large`, and the connection is closed (``LingeringClose``: the client reads the answer even while
/// it is still sending). Without it the WebSocket upgrade negotiation, which
/// waits for a first request, waited on, and the connection stayed open with nothing said.
///
/// The handler removes itself when the first head passes (the connection is then an HTTP
/// exchange or a WebSocket, whose handlers end it on a bad frame or request).
final class MalformedRequestAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let head = HTTPResponseHead(
            version: .http1_1, status: Self.status(for: error),
            headers: HTTPHeaders([("Connection", "close"), ("Content-Length", "0")]))
        context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
        LingeringClose.answer(Self.wrapOutboundOut(.end(nil)), on: context)
    }

    /// The answer to a request the decoder refused with `error`.
    static func status(for error: HTTPParserError) -> HTTPResponseStatus {
        switch error {
        case .headerOverflow: .requestHeaderFieldsTooLarge
        default: .badRequest
        }
    }
}
