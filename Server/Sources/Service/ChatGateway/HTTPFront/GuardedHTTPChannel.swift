import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The gateway's HTTP/1 + WebSocket channel (`Base`: HummingbirdWebSocket's
/// `HTTP1WebSocketUpgradeChannel`) with a connection's first request guarded: a request line
/// over ``RequestLineLimit/maximumBytes`` is answered 414, a request the HTTP decoder cannot
/// read 400 or 431 (``MalformedRequestAnswer``), and the connection closed — where the library
/// alone, which leaves error handling to its pipeline, kept such a connection open with no
/// answer. Everything else is `Base`'s.
struct GuardedHTTPChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(MalformedRequestAnswer(), position: .after(decoder))
            try pipeline.addHandler(RequestLineLimit(), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
