import AsyncHTTPClient
import ChatAPI
import ChatServer
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Pushes to an operator's own push service: `POST` to `url` with the JSON body
/// `{"userId","deviceToken","provider","channelId","messageId","title","body","badge"}` and
/// the header `X-Chat-Signature: sha256=HEX`, the HMAC-SHA256 of the body with the shared
/// secret, so the receiver can tell the pushes are the server's. 2xx: sent; 410: the device is
/// gone; 429 and 5xx: retried; other statuses: failed. Every device, whatever its provider.
public struct WebhookPushProvider: PushProvider {
    public let name = "webhook"
    let url: String
    let key: SymmetricKey
    let client: HTTPClient

    /// A provider posting to `url`, signing with `secret`, through `client` (the process's shared
    /// one by default).
    public init(url: String, secret: [UInt8], client: HTTPClient = .shared) {
        self.url = url
        self.key = SymmetricKey(data: secret)
        self.client = client
    }

    public func handles(_ device: PushDevice) -> Bool { true }

    struct Body: Encodable {
        var userId: String
        var deviceToken: String
        var provider: String
        var channelId: String
        var messageId: String
        var title: String
        var body: String
        var badge: Int
    }

    /// The JSON body of `notification`.
    static func body(of notification: PushNotification) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(
            Body(
                userId: notification.userId, deviceToken: notification.device.id,
                provider: notification.device.provider.rawValue, channelId: notification.channelId,
                messageId: notification.messageId, title: notification.title, body: notification.body,
                badge: notification.badge))
    }

    /// `sha256=HEX`: the signature of `body` with `key`.
    static func signature(of body: Data, key: SymmetricKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: key)
        return "sha256=" + code.map { String(format: "%02x", $0) }.joined()
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        do {
            let body = try Self.body(of: notification)
            let (status, _) = try await client.post(
                url, headers: [("X-Chat-Signature", Self.signature(of: body, key: key))], body: body)
            switch status {
            case 200..<300: return .sent
            case 410: return .gone
            case 429, 500..<600: return .retry
            default: return .failed
            }
        } catch {
            return .retry
        }
    }
}
