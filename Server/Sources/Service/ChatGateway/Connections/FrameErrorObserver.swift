import ChatAPI
import NIOCore
import NIOWebSocket

/// Hears the errors NIO's frame decoder raises on one WebSocket connection — a frame over the
/// size limit, a malformed control frame — which the WebSocket library answers with a close
/// of its own (1009, 1002) that the connection's `WireSession` never sees, so the gateway can
/// count them among the rejections. Passes every frame and error on unchanged; lives right
/// after the decoder and runs on the channel's event loop.
final class FrameErrorObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let closedBecause: @Sendable (WireCloseCode) -> Void

    /// An observer that calls `closedBecause` with the close code the library sends for each
    /// decoder error.
    init(closedBecause: @escaping @Sendable (WireCloseCode) -> Void) {
        self.closedBecause = closedBecause
    }

    /// Places an observer after `channel`'s frame decoder; `false` if it has none (closed).
    static func install(on channel: any NIOCore.Channel, closedBecause: @escaping @Sendable (WireCloseCode) -> Void)
        async -> Bool
    {
        let placed: Void? = try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try operations.addHandler(FrameErrorObserver(closedBecause: closedBecause), position: .after(decoder))
        }.get()
        return placed != nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error as? NIOWebSocketError {
        case .invalidFrameLength?: closedBecause(.messageTooBig)
        case .fragmentedControlFrame?, .multiByteControlFrameLength?: closedBecause(.protocolError)
        default: break
        }
        context.fireErrorCaught(error)
    }
}
