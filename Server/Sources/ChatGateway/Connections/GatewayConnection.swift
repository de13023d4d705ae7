import ChatAPI
import ChatServer
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOWebSocket

/// One WebSocket connection at the gateway: the token checked, then the frames pumped between
/// the socket and a `WireSession` — which holds every protocol and chat rule.
///
/// A refused token closes the connection at once with 4001 (its reason says why); a token that
/// expires while connected closes it with 4001 when it does (plus the 60 s leeway).
struct GatewayConnection {
    let server: ChatServer
    let authority: TokenAuthority
    let metrics: GatewayMetrics
    let sessions: SessionRegistry
    let maximumFrameBytes: Int
    let logger: Logger

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, request: Request) async {
        let bearer = request.headers[.authorization].flatMap { header -> String? in
            header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        }
        let token = bearer ?? request.uri.queryParameters["token"].map(String.init)
        let deviceId = request.uri.queryParameters["device"].map(String.init) ?? ChatServer.defaultDeviceId
        let identity: TokenAuthority.Identity
        do {
            identity = try await authority.identity(for: token)
        } catch {
            metrics.rejected("unauthorized")
            logger.info("token refused", metadata: ["reason": "\(error)"])
            // The client's hello comes first (its write and this close must not cross), then
            // the close, 4001 with the reason.
            var frames = inbound.messages(maxSize: maximumFrameBytes).makeAsyncIterator()
            _ = try? await frames.next()
            try? await outbound.close(.unknown(UInt16(WireCloseCode.unauthorized.rawValue)), reason: Self.limited("\(error)"))
            return
        }
        let metrics = metrics
        let session = WireSession(
            server: server, userId: identity.userId, deviceId: deviceId,
            record: { record in
                switch record {
                case .request: metrics.requestReceived()
                case .event: metrics.eventDelivered()
                case .failure(.rateLimited): metrics.rejected("rateLimited")
                case .failure: break
                case .closed(let code): metrics.rejected(Self.reason(forClose: code))
                }
            },
            output: { output in
                switch output {
                case .text(let text):
                    try? await outbound.write(.text(text))
                case .close(let code, let reason):
                    try? await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
                }
            })
        metrics.connectionOpened()
        let registration = sessions.add(session)
        defer {
            sessions.remove(registration)
            metrics.connectionClosed()
        }
        let expiry = identity.expiresAt.map { expiresAt in
            Task {
                try? await Task.sleep(for: .seconds(max(0, expiresAt.timeIntervalSinceNow)))
                if !Task.isCancelled {
                    await session.close(code: WireCloseCode.unauthorized.rawValue, reason: "the token expired; connect with a new one")
                }
            }
        }
        defer { expiry?.cancel() }
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
                await session.close(code: WireCloseCode.messageTooBig.rawValue, reason: "a message over \(maximumFrameBytes) bytes")
            }
        }
        await session.end()
    }

    /// The metrics label of a close the session made.
    private static func reason(forClose code: Int) -> String {
        switch WireCloseCode(rawValue: code) {
        case .protocolError?, .unsupportedData?, .unsupportedProtocol?: "protocol"
        case .messageTooBig?: "tooBig"
        case .unauthorized?: "unauthorized"
        case .rateLimited?: "rateLimited"
        case .tooSlow?: "tooSlow"
        case .replaced?: "replaced"
        default: "closed"
        }
    }

    /// A close reason within the 123 bytes a close frame holds.
    static func limited(_ reason: String) -> String {
        var limited = reason
        while limited.utf8.count > 123 { limited.removeLast() }
        return limited
    }
}
