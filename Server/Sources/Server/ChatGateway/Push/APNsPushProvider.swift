import AsyncHTTPClient
import ChatAPI
import ChatServer
import Foundation
import JWTKit
import NIOCore

/// Pushes to Apple's devices through APNs, with token-based authentication over HTTP/2.
///
/// Each push is `POST /3/device/<hex token>` on ``baseURL`` with the headers Apple documents:
/// `authorization: bearer <provider token>`, `apns-topic` (the app's bundle id),
/// `apns-push-type: alert`, `apns-priority: 10`; the body is
/// `{"aps":{"alert":{"title","body"},"badge","sound":"default","thread-id"},"channelId","messageId"}`.
/// The provider token is an ES256 JWT signed with the team's `.p8` key — header `kid` (the
/// key's id), claims `iss` (the team id) and `iat` — and is reused for 50 minutes (Apple
/// refuses one older than an hour, and one made more often than every 20 minutes).
///
/// Answers: 200 sent; 410, or 400 `BadDeviceToken`/`Unregistered`: the device is gone;
/// 403 `ExpiredProviderToken`: a new token, then retried; 429 and 5xx: retried; other answers
/// fail (403 `InvalidProviderToken` among them: the key, its id or the team is wrong). Handles `.apn` devices only.
public struct APNsPushProvider: PushProvider {
    public let name = "apns"
    /// Apple's production endpoint.
    public static let productionURL = "https://api.push.apple.com"
    /// Apple's development (sandbox) endpoint, for apps signed for development.
    public static let sandboxURL = "https://api.sandbox.push.apple.com"
    /// How long one provider token is used.
    static let tokenLifetime: TimeInterval = 50 * 60

    let baseURL: String
    let topic: String
    let client: HTTPClient
    let credential: PushCredential

    /// What is wrong with a key file.
    public struct KeyError: Error, CustomStringConvertible {
        public var description: String
    }

    /// A provider for the app `topic` (its bundle id), signing with the `.p8` key `keyPEM`
    /// (PKCS #8, P-256) whose id is `keyId`, of the team `teamId`.
    /// - Throws: ``KeyError`` when `keyPEM` is not a P-256 private key in PEM.
    public init(
        keyPEM: String, keyId: String, teamId: String, topic: String, baseURL: String = productionURL,
        client: HTTPClient = .shared
    ) async throws {
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: keyPEM)
        } catch {
            throw KeyError(description: "not an APNs auth key (a P-256 private key in PEM, as in a .p8 file)")
        }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyId))
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.topic = topic
        self.client = client
        self.credential = PushCredential {
            let now = Date.wholeSecond()
            let token = try await keys.sign(
                ProviderTokenClaims(iss: IssuerClaim(value: teamId), iat: IssuedAtClaim(value: now)),
                kid: JWKIdentifier(string: keyId))
            return .init(value: token, usableUntil: now.addingTimeInterval(Self.tokenLifetime))
        }
    }

    /// The claims of a provider token.
    struct ProviderTokenClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    public func handles(_ device: PushDevice) -> Bool { device.provider == .apn }

    /// The body APNs gets for `notification`.
    static func body(of notification: PushNotification) throws -> Data {
        struct Alert: Encodable {
            var title: String
            var body: String
        }
        struct Aps: Encodable {
            var alert: Alert
            var badge: Int
            var sound = "default"
            var threadId: String
            enum CodingKeys: String, CodingKey {
                case alert, badge, sound
                case threadId = "thread-id"
            }
        }
        struct Body: Encodable {
            var aps: Aps
            var channelId: String
            var messageId: String
        }
        return try JSONEncoder().encode(
            Body(
                aps: Aps(
                    alert: Alert(title: notification.title, body: notification.body), badge: notification.badge,
                    threadId: notification.threadId),
                channelId: notification.channelId, messageId: notification.messageId))
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        do {
            let token = try await credential.value()
            let (status, answer) = try await client.post(
                "\(baseURL)/3/device/\(notification.device.id)",
                headers: [
                    ("authorization", "bearer \(token)"), ("apns-topic", topic), ("apns-push-type", "alert"),
                    ("apns-priority", "10"),
                ], body: try Self.body(of: notification))
            switch (status, Self.reason(in: answer)) {
            case (200..<300, _): return .sent
            case (410, _), (400, "BadDeviceToken"), (400, "Unregistered"): return .gone
            case (403, "ExpiredProviderToken"):
                await credential.refused(token)
                return .retry
            case (429, _), (500..<600, _): return .retry
            default: return .failed
            }
        } catch {
            return .retry
        }
    }

    /// The `reason` of an APNs error body (`{"reason":"BadDeviceToken"}`).
    static func reason(in body: Data) -> String? {
        struct Answer: Decodable { var reason: String? }
        return (try? JSONDecoder().decode(Answer.self, from: body))?.reason
    }
}
