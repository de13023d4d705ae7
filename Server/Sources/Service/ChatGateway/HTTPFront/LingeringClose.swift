import NIOCore

/// How the HTTP front closes a connection it refused before reading the whole request: the
/// answer is flushed, then only the output is closed, so a client still sending (a 100 kB target,
/// a large header) reads the answer instead of a reset; the connection is closed whole when the
/// client closes its side or after ``linger``, whichever is first. The handler calling it drops
/// what arrives meanwhile.
enum LingeringClose {
    /// How long a refused client may go on sending before the connection is closed: 2 s.
    static let linger = TimeAmount.seconds(2)

    /// Writes `answer` through `context`, then closes as the type describes.
    static func answer(_ answer: NIOAny, on context: ChannelHandlerContext) {
        context.writeAndFlush(answer).assumeIsolated().whenComplete { _ in
            context.close(mode: .output, promise: nil)
            context.eventLoop.assumeIsolated().scheduleTask(in: linger) {
                context.close(promise: nil)
            }
        }
    }
}
