import NIOCore
import NIOWebSocket

/// Hears the pongs of one WebSocket connection for its ``Heartbeat``, passing every frame on
/// unchanged. Lives in the channel's pipeline between NIO's frame decoder and the library's
/// handler; runs on the channel's event loop.
final class PongObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let heartbeat: Heartbeat

    init(heartbeat: Heartbeat) {
        self.heartbeat = heartbeat
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .pong {
            heartbeat.pongReceived()
        }
        context.fireChannelRead(data)
    }
}
