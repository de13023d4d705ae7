import ChatAPI
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// Refusals of WebSocket upgrades, answered as the protocol says: an HTTP status with the JSON
/// body `{"error":CHAT_ERROR}` (401 for a refused token, 429 past the device cap).
///
/// HummingbirdWebSocket answers every refused upgrade with a bare `400`; the gateway records why
/// it refused, per channel, and ``Rewriter`` — a handler of that connection's HTTP pipeline —
/// turns the `400` into the recorded answer on its way out.
final class UpgradeRefusals: Sendable {
    struct Refusal: Sendable {
        var status: HTTPResponse.Status
        var body: [UInt8]
    }

    private let refusals = NIOLockedValueBox<[ObjectIdentifier: Refusal]>([:])

    /// Records that the upgrade on `channel` is refused as `refusal` says.
    func refuse(_ channel: any NIOCore.Channel, with refusal: ConnectAdmission.Refusal) {
        let answer = Refusal(status: refusal.status, body: refusal.body)
        refusals.withLockedValue { $0[ObjectIdentifier(channel)] = answer }
    }

    /// The refusal recorded for `channel`, forgotten as it is taken.
    func take(for channel: any NIOCore.Channel) -> Refusal? {
        refusals.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Rewrites the `400` of a refused upgrade into the recorded refusal.
    final class Rewriter: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
        // Used on its channel's event loop only (NIO's handler contract); `refusals` is Sendable.
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private let refusals: UpgradeRefusals

        init(_ refusals: UpgradeRefusals) { self.refusals = refusals }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard case .head(let head) = unwrapOutboundIn(data), head.status == .badRequest,
                let refusal = refusals.take(for: context.channel)
            else {
                context.write(data, promise: promise)
                return
            }
            let answer = HTTPResponse(
                status: refusal.status,
                headerFields: [
                    .contentType: "application/json; charset=utf-8", .contentLength: "\(refusal.body.count)",
                    .connection: "close",
                ])
            context.write(wrapOutboundOut(.head(answer)), promise: nil)
            context.write(wrapOutboundOut(.body(ByteBuffer(bytes: refusal.body))), promise: promise)
        }
    }
}
