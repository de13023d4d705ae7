import AsyncHTTPClient
import ChatAPI
import ChatGateway
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
/// refuses one older than an hour, and one made more often than every 20 minutes). The nodes of
/// a cluster send one token between them (``ClusterSharedValues``): the first node to need one
/// signs and stores it, the others read it; one refused as expired is replaced once, by
/// whichever node saw it refused first. While the cluster's store cannot be reached, a node
/// signs its own so that pushes go on.
///
/// The payload is cut to Apple's 4,096 bytes (``payloadLimit``): the body, then the title, on a
/// character boundary ending in "…" (``PushPayload``).
///
/// Answers: 200 sent; 410, or 400 `BadDeviceToken`/`Unregistered`: the device is gone;
/// 403 `ExpiredProviderToken`: a new token, then retried; 429 and 5xx: retried with the
/// delivery's backoff (jittered, a few seconds in all), waiting Apple's `Retry-After` when it
/// sends one (one over a minute ends the tries: a push that late is old news, and the app shows
/// the message once opened); other answers fail (403 `InvalidProviderToken` among them: the
/// key, its id or the team is wrong). Each result carries Apple's `reason` when it is one Apple
/// documents (``reasons``). Handles `.apn` devices only.
public struct APNsPushProvider: PushProvider {
    public let name = "apns"
    /// Apple's production endpoint.
    public static let productionURL = "https://api.push.apple.com"
    /// Apple's development (sandbox) endpoint, for apps signed for development.
    public static let sandboxURL = "https://api.sandbox.push.apple.com"
    /// How long one provider token is used: Apple refuses one older than an hour, and answers
    /// `TooManyProviderTokenUpdates` to tokens made more often than every 20 minutes.
    static let tokenLifetime: TimeInterval = 50 * 60
    /// The most bytes of payload Apple takes for an alert (413 `PayloadTooLarge` above).
    static let payloadLimit = 4_096
    /// The `reason`s Apple documents for its answers: the values a result's reason may take
    /// besides ``PushResult``'s own.
    static let reasons: Set<String> = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
        "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError",
        "ServiceUnavailable", "Shutdown",
    ]

    let baseURL: String
    let topic: String
    let client: HTTPClient
    let credential: PushCredential
    /// The most bytes of body sent (``payloadLimit``; tests send more, to see the provider refuse it).
    var bodyLimit = Self.payloadLimit

    /// What is wrong with a key file.
    public struct KeyError: Error, CustomStringConvertible {
        public var description: String
    }

    /// A provider for the app `topic` (its bundle id), signing with the `.p8` key `keyPEM`
    /// (PKCS #8, P-256) whose id is `keyId`, of the team `teamId`; on a cluster, sharing its
    /// provider token with the other nodes through `sharedValues`.
    /// - Throws: ``KeyError`` when `keyPEM` is not a P-256 private key in PEM.
    public init(
        keyPEM: String, keyId: String, teamId: String, topic: String, baseURL: String = productionURL,
        client: HTTPClient = .shared, sharedValues: (any ClusterSharedValues)? = nil
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
        let sign: @Sendable () async throws -> PushCredential.Issued = {
            let now = Date.wholeSecond()
            let token = try await keys.sign(
                ProviderTokenClaims(iss: IssuerClaim(value: teamId), iat: IssuedAtClaim(value: now)),
                kid: JWKIdentifier(string: keyId))
            return .init(value: token, usableUntil: now.addingTimeInterval(Self.tokenLifetime))
        }
        self.credential = PushCredential { refused in
            guard let sharedValues else { return try await sign() }
            return try await Self.sharedToken(
                key: Self.sharedTokenKey(teamId: teamId, keyId: keyId), refused: refused, in: sharedValues, sign: sign)
        }
    }

    /// The key under which a cluster's nodes share the provider token of one team's key.
    static func sharedTokenKey(teamId: String, keyId: String) -> String { "apns-provider-token/\(teamId)/\(keyId)" }

    /// The cluster's provider token: the one stored under `key` unless it is `refused`, else one
    /// signed here and stored in its place (or the one another node stored first). Signed here
    /// and not shared when `values` cannot be reached.
    static func sharedToken(
        key: String, refused: String?, in values: any ClusterSharedValues,
        sign: @Sendable () async throws -> PushCredential.Issued
    ) async throws -> PushCredential.Issued {
        let stored: SharedValue?
        do {
            stored = try await values.value(for: key, now: Date())
        } catch {
            return try await sign()
        }
        if let stored, stored.value != refused { return .init(value: stored.value, usableUntil: stored.until) }
        let signed = try await sign()
        do {
            let kept = try await values.store(
                SharedValue(value: signed.value, until: signed.usableUntil), for: key, replacing: refused, now: Date())
            return .init(value: kept.value, usableUntil: kept.until)
        } catch {
            return signed
        }
    }

    /// The claims of a provider token.
    struct ProviderTokenClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    public func handles(_ device: PushDevice) -> Bool { device.provider == .apn }

    /// The body APNs gets for `notification`: at most `limit` bytes when it can be cut to that.
    static func body(of notification: PushNotification, limit: Int) throws -> Data {
        try PushPayload.fitting(notification, limit: limit, encode: encoded)
    }

    /// `notification`'s body for APNs, whole.
    static func encoded(_ notification: PushNotification) throws -> Data {
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
        return try PushJSON.encode(
            Body(
                aps: Aps(
                    alert: Alert(title: notification.title, body: notification.body), badge: notification.badge,
                    threadId: notification.threadId),
                channelId: notification.channelId, messageId: notification.messageId))
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        await deliver(notification).outcome
    }

    public func deliver(_ notification: PushNotification) async -> PushResult {
        let token: String
        do {
            token = try await credential.value()
        } catch {
            return PushResult(.failed, reason: PushResult.credential)
        }
        let answer: ProviderAnswer
        do {
            answer = try await client.post(
                "\(baseURL)/3/device/\(notification.device.id)",
                headers: [
                    ("authorization", "bearer \(token)"), ("apns-topic", topic), ("apns-push-type", "alert"),
                    ("apns-priority", "10"),
                ], body: try Self.body(of: notification, limit: bodyLimit))
        } catch {
            return PushResult(.retry, reason: PushResult.noAnswer)
        }
        let reason = Self.reason(in: answer.body)
        let label = PushResult.known(reason, in: Self.reasons) ?? PushResult.http(answer.status)
        switch (answer.status, reason) {
        case (200..<300, _): return PushResult(.sent, reason: PushResult.ok, status: answer.status)
        case (410, _), (400, "BadDeviceToken"), (400, "Unregistered"):
            return PushResult(.gone, reason: label, status: answer.status)
        case (403, "ExpiredProviderToken"):
            await credential.refused(token)
            return PushResult(.retry, reason: label, status: answer.status)
        case (429, _), (500..<600, _):
            return PushResult(.retry, reason: label, status: answer.status, retryAfter: answer.retryAfter)
        default: return PushResult(.failed, reason: label, status: answer.status)
        }
    }

    /// The `reason` of an APNs error body (`{"reason":"BadDeviceToken"}`).
    static func reason(in body: Data) -> String? {
        struct Answer: Decodable { var reason: String? }
        return (try? JSONDecoder().decode(Answer.self, from: body))?.reason
    }
}
