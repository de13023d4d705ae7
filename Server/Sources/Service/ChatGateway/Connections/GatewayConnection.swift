import ChatAPI
import ChatServer
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// One WebSocket connection at the gateway, its token checked before the upgrade: the frames
/// pumped between the socket and a `WireSession` — which holds every protocol and chat rule.
///
/// Text frames are written in batches (``FrameQueue``): those queued while the previous batch
/// was being written go out together, with one flush, encoded on the event loop into one buffer
/// (a frame that cannot be encoded closes the connection with 1011).
///
/// A token that expires while connected closes the connection with 4001 when it does (plus the
/// 60 s leeway). The gateway pings every `pingInterval` (``Heartbeat``); no pong within two
/// intervals of the first unanswered ping closes with 4002. After any close the session or the
/// library sends, a peer that has not finished the close handshake within `closeTimeout` has
/// its TCP connection dropped, even one that stopped reading with the server's writes held up
/// behind its full buffers (a stopped or vanished client cannot hold the connection open).
struct GatewayConnection {
    let server: ChatServer
    let metrics: GatewayMetrics
    let sessions: SessionRegistry
    let maximumFrameBytes: Int
    let pingInterval: Duration
    let closeTimeout: Duration

    /// Serves one upgraded connection of `identity` (its token already checked) on `deviceId`,
    /// over `channel` (the upgraded socket, for the heartbeat's observer and the dropping of a
    /// peer that does not finish a close).
    func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any NIOCore.Channel,
        identity: TokenAuthority.Identity, deviceId: String
    ) async {
        let metrics = metrics
        let closeTimeout = closeTimeout
        // Drops the TCP connection `closeTimeout` from now unless it has ended by then (closing
        // a closed channel does nothing): started *before* a close frame is written, since a
        // peer that stopped reading holds that write up too.
        let dropLater: @Sendable () -> Void = {
            Task {
                try? await Task.sleep(for: closeTimeout)
                channel.close(promise: nil)
            }
        }
        // Text frames go out in batches, one flush each (nil only for a channel already closed:
        // the library's writer then, which fails as the channel has). A frame that cannot be
        // encoded is not sent and closes the connection with 1011 (the session is told once it
        // exists; the hook is let go when the connection ends).
        let onUnencodable = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
        let frameQueue = await FrameQueue<WireFrame>.install(on: channel) {
            onUnencodable.withLockedValue { $0 }?()
        }
        defer { onUnencodable.withLockedValue { $0 = nil } }
        // Frames sent from the engine's thread without waiting while the frame queue has room (the
        // answers of requests run queued at its lock, the events of a burst).
        let queueFrame: (@Sendable (WireFrame) -> Bool)?
        if let frameQueue {
            queueFrame = { frame in frameQueue.sendIfRoom(frame) }
        } else {
            queueFrame = nil
        }
        let session = WireSession(
            server: server, userId: identity.userId, deviceId: deviceId,
            record: { record in
                switch record {
                case .request: metrics.requestReceived()
                case .event: metrics.eventDelivered()
                case .failure(.rateLimited): metrics.rejected("rateLimited")
                case .failure(.limitExceeded): metrics.rejected("limitExceeded")
                case .failure: break
                case .closed(let code):
                    // Only the closes that refuse the client count (not a shutdown or a takeover).
                    if let reason = Self.rejection(forClose: code) { metrics.rejected(reason) }
                }
            },
            queueFrame: queueFrame,
            output: { output in
                switch output {
                case .frame(let frame):
                    if let frameQueue {
                        await frameQueue.send(frame)
                    } else if let text = try? WireCodec.encode(frame) {
                        try? await outbound.write(.text(text))
                    }
                case .close(let code, let reason):
                    dropLater()
                    // After the frames queued before it (a peer that stopped reading is dropped
                    // by `dropLater` meanwhile, which ends the wait).
                    await frameQueue?.close()
                    try? await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
                }
            })
        onUnencodable.withLockedValue { hook in
            hook = {
                Task {
                    await session.close(
                        code: WireCloseCode.internalError.rawValue, reason: "a frame could not be encoded")
                }
            }
        }
        metrics.connectionOpened()
        let registration = sessions.add(session)
        defer {
            if let registration { sessions.remove(registration) }
            metrics.connectionClosed()
        }
        guard registration != nil else {
            // Upgraded while the shutdown closes every connection: this one too.
            await session.close(code: WireCloseCode.goingAway.rawValue, reason: "the server is shutting down")
            await session.end()
            return
        }
        // Watched on the channel's event loop, like the heartbeat: no task per connection.
        let expiry = identity.expiresAt.map { expiresAt in
            TokenExpiry(expiresAt, on: channel.eventLoop) {
                Task {
                    await session.close(
                        code: WireCloseCode.unauthorized.rawValue, reason: "the token expired; connect with a new one")
                }
            }
        }
        defer { expiry?.cancel() }
        let heartbeat = Heartbeat(interval: pingInterval)
        await heartbeat.listen(on: channel)
        // A frame the library refuses itself (over the size limit) closes without the session:
        // counted here. HummingbirdWebSocket offers no hook inside the upgrade, so the observer
        // joins just after it: a frame refused in that first moment is closed all the same (1009)
        // but not counted.
        _ = await FrameErrorObserver.install(on: channel) { code in
            if let reason = Self.rejection(forClose: code.rawValue) { metrics.rejected(reason) }
        }
        let pings = heartbeat.start(
            on: channel.eventLoop,
            // Written past the library's writer, by the frame queue's (it fails too once a close went
            // out); without a frame queue the channel has closed already.
            ping: { payload in
                frameQueue?.ping(payload) ?? channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
            },
            // The writer ended without the session closing: the library itself sent a close
            // (a frame it refused). The peer still gets the close handshake's time.
            writeFailed: dropLater,
            timedOut: {
                Task {
                    await session.close(
                        code: WireCloseCode.heartbeatTimeout.rawValue, reason: "no pong within two ping intervals")
                }
            })
        defer { pings.cancel() }
        do {
            for try await message in inbound.messages(maxSize: maximumFrameBytes) {
                switch message {
                case .text(let text): await session.receive(text)
                case .binary: await session.receiveBinary()
                }
                if session.isClosed { break }
            }
        } catch {
            // A message over the size limit (continuation frames), or the socket failed.
            if !session.isClosed {
                await session.close(
                    code: WireCloseCode.messageTooBig.rawValue, reason: "a message over \(maximumFrameBytes) bytes")
            }
        }
        await session.end()
    }

    /// The metrics label of a close that refuses the client; `nil` for the others.
    private static func rejection(forClose code: Int) -> String? {
        switch WireCloseCode(rawValue: code) {
        case .protocolError?, .unsupportedData?, .unsupportedProtocol?: "protocol"
        case .messageTooBig?: "tooBig"
        case .unauthorized?: "unauthorized"
        case .rateLimited?: "rateLimited"
        case .tooSlow?: "tooSlow"
        case .heartbeatTimeout?: "heartbeatTimeout"
        default: nil
        }
    }
}
