import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import Synchronization

/// The server's side of the heartbeat on one connection (wire protocol: close 4002): a ping
/// every `interval`; no pong within two intervals of the first unanswered ping closes the
/// connection.
///
/// HummingbirdWebSocket answers pings and consumes pongs itself, and its own auto-ping closes
/// with 1001 after one interval; so the gateway turns that off, sends its pings as control
/// frames through the library's writer, and hears pongs through ``PongObserver``, a handler
/// placed in the channel's pipeline right after NIO's frame decoder. No framing is done here.
///
/// Semantics: any pong answers every ping sent before it. Pings keep going while unanswered
/// (a late pong still counts), so the close comes exactly two intervals after the first ping
/// that went unanswered, at a tick of the loop.
///
/// - Threading: thread-safe; the observer calls ``pongReceived()`` on the channel's event
///   loop, where the pings run too (``start(on:ping:writeFailed:timedOut:)``).
final class Heartbeat: Sendable {
    /// The time between pings.
    let interval: Duration
    /// When the oldest ping still unanswered was sent; `nil` when every ping was answered.
    private let unansweredSince = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    /// Whether pongs can be heard (the observer was placed): without it no connection is
    /// closed for a missing pong, as none could be seen.
    private let listening = Atomic<Bool>(false)
    /// Whether a ping is being written (no other is started meanwhile).
    private let writing = Atomic<Bool>(false)
    /// Whether a ping failed to be written (the writer has ended; no more pings).
    private let failed = Atomic<Bool>(false)
    /// The pings sent (the last one's payload).
    private let sent = Atomic<UInt64>(0)

    init(interval: Duration) {
        self.interval = interval
    }

    /// A pong arrived: every ping sent so far is answered.
    func pongReceived() {
        unansweredSince.withLockedValue { $0 = nil }
    }

    /// Whether no pong came within two intervals of the first unanswered ping, at `now`.
    func hasTimedOut(at now: ContinuousClock.Instant) -> Bool {
        guard listening.load(ordering: .relaxed) else { return false }
        return unansweredSince.withLockedValue { since in since.map { now - $0 >= interval * 2 } ?? false }
    }

    /// Places the ``PongObserver`` in `channel`'s pipeline, right after the WebSocket frame
    /// decoder (after the upgrade). Without a decoder there (not a WebSocket pipeline of NIO's)
    /// it places nothing and the heartbeat only pings.
    func listen(on channel: any Channel) async {
        let placed: Void? = try? await channel.eventLoop.submit { [self] in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try operations.addHandler(PongObserver(heartbeat: self), position: .after(decoder))
        }.get()
        listening.store(placed != nil, ordering: .relaxed)
    }

    /// Pings through `ping` every interval, as a repeated task of `eventLoop` (the channel's:
    /// no Swift task of its own per connection), until the returned task is cancelled or a pong
    /// is overdue (then calls `timedOut` and pings no more).
    ///
    /// `ping` writes without waiting (it returns the write's future), so the deadline is checked
    /// on time even while a write waits (a peer that stopped reading, its buffers full, holds
    /// writes up indefinitely): while one ping is still being written no other is started. A
    /// ping that fails (the connection's writer has ended: a close was sent, possibly by the
    /// library itself) calls `writeFailed` once and pings no more; the deadline still runs.
    func start(
        on eventLoop: any EventLoop, ping: @escaping @Sendable (ByteBuffer) -> EventLoopFuture<Void>,
        writeFailed: @escaping @Sendable () -> Void, timedOut: @escaping @Sendable () -> Void
    ) -> RepeatedTask {
        let (seconds, attoseconds) = interval.components
        let amount = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return eventLoop.scheduleRepeatedTask(initialDelay: amount, delay: amount) { [self] task in
            let now = ContinuousClock.now
            if hasTimedOut(at: now) {
                task.cancel()
                timedOut()
                return
            }
            guard !failed.load(ordering: .relaxed), !writing.load(ordering: .relaxed) else { return }
            var payload = ByteBuffer()
            payload.writeInteger(sent.add(1, ordering: .relaxed).newValue)
            unansweredSince.withLockedValue { since in if since == nil { since = now } }
            writing.store(true, ordering: .relaxed)
            ping(payload).whenComplete { [self] result in
                if case .failure = result, !failed.exchange(true, ordering: .relaxed) { writeFailed() }
                writing.store(false, ordering: .relaxed)
            }
        }
    }
}
