import AsyncHTTPClient
import ChatAPI
import ChatServer
import Foundation
import JWTKit
import NIOCore

/// Pushes to Android (and any Firebase-registered) devices through the FCM HTTP v1 API.
///
/// Authentication is the service-account flow Google documents for servers: an RS256 JWT
/// assertion signed with the account's private key — claims `iss` (its `client_email`), `scope`
/// (`https://www.googleapis.com/auth/firebase.messaging`), `aud` (its `token_uri`), `iat`, `exp`
/// (an hour later), header `kid` (its `private_key_id`) — exchanged at `token_uri` for an
/// OAuth2 access token (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`), used until a
/// minute before its `expires_in`.
///
/// Each push is `POST /v1/projects/<project_id>/messages:send` on ``baseURL`` with
/// `Authorization: Bearer <access token>` and the body
/// `{"message":{"token","notification":{"title","body"},"data":{"channelId","messageId","badge"},
/// "android":{"notification":{"tag","notification_count"}},"apns":{"payload":{"aps":{"badge","thread-id"}}}}}`.
///
/// The request's body is cut to 4,096 bytes (``messageLimit``): the notification's body, then its
/// title, on a character boundary ending in "…" (``PushPayload``).
///
/// Answers: 200 sent; any answer whose error says `UNREGISTERED`, or `INVALID_ARGUMENT` about the
/// token (a field violation of `message.token`, or a message about the registration token): the
/// device is gone; 401 `THIRD_PARTY_AUTH_ERROR`: failed (Firebase's APNs key or certificate is
/// wrong: a new access token would not help); another 401: a new access token, then retried; 429
/// and 5xx: retried, after the `Retry-After` they give; other answers fail, and so does a push
/// when the token endpoint refuses the account (4xx). Each result carries FCM's `errorCode` (else
/// its `status`) when it is one FCM documents (``reasons``). Handles `.firebase` devices only.
public struct FCMPushProvider: PushProvider {
    public let name = "fcm"
    /// Google's endpoint.
    public static let productionURL = "https://fcm.googleapis.com"
    /// What FCM's access token is asked for.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The most bytes of request body sent: FCM refuses a message over 4,096 bytes of payload
    /// (400 `INVALID_ARGUMENT`), and the whole body is kept within that.
    static let messageLimit = 4_096
    /// The `errorCode`s (`FcmError`) and `status`es FCM documents: the values a result's reason
    /// may take besides ``PushResult``'s own.
    static let reasons: Set<String> = [
        "UNSPECIFIED_ERROR", "INVALID_ARGUMENT", "UNREGISTERED", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED",
        "UNAVAILABLE", "INTERNAL", "THIRD_PARTY_AUTH_ERROR", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND",
        "RESOURCE_EXHAUSTED",
    ]

    /// The fields of a service account's JSON key file that the provider reads.
    public struct ServiceAccount: Decodable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        public var projectId: String
        public var clientEmail: String
        public var privateKey: String
        public var privateKeyId: String?
        public var tokenURI: String

        enum CodingKeys: String, CodingKey {
            case projectId = "project_id"
            case clientEmail = "client_email"
            case privateKey = "private_key"
            case privateKeyId = "private_key_id"
            case tokenURI = "token_uri"
        }

        /// The account without its key: what a log line may show.
        public var description: String { "service account \(clientEmail) of \(projectId)" }
        public var debugDescription: String { description }

        /// Reads a service account's JSON key file.
        /// - Throws: ``AccountError`` naming the first field missing or wrong.
        public init(json: Data) throws {
            guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw AccountError(description: "not a JSON object (a service account's key file)")
            }
            func field(_ name: String) throws -> String {
                guard let value = object[name] as? String, !value.isEmpty else {
                    throw AccountError(description: "the service account has no \(name)")
                }
                return value
            }
            projectId = try field("project_id")
            clientEmail = try field("client_email")
            privateKey = try field("private_key")
            privateKeyId = object["private_key_id"] as? String
            tokenURI = (object["token_uri"] as? String) ?? "https://oauth2.googleapis.com/token"
        }
    }

    /// What is wrong with a service account file.
    public struct AccountError: Error, CustomStringConvertible {
        public var description: String
    }

    let baseURL: String
    /// The project's id (the account's key stays in ``credential`` only).
    let projectId: String
    let client: HTTPClient
    let credential: PushCredential
    /// The most bytes of body sent (``messageLimit``; tests send more, to see the provider refuse it).
    var bodyLimit = Self.messageLimit

    /// A provider sending as `account`, through `client`.
    /// - Throws: ``AccountError`` when the account's `private_key` is not an RSA key in PEM.
    public init(account: ServiceAccount, baseURL: String = productionURL, client: HTTPClient = .shared) async throws {
        let key: Insecure.RSA.PrivateKey
        do {
            key = try Insecure.RSA.PrivateKey(pem: account.privateKey)
        } catch {
            throw AccountError(description: "the service account's private_key is not an RSA private key in PEM")
        }
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: account.privateKeyId.map { JWKIdentifier(string: $0) })
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.projectId = account.projectId
        self.client = client
        self.credential = PushCredential { _ in
            try await Self.accessToken(for: account, signingWith: keys, client: client)
        }
    }

    /// The claims of the assertion exchanged for an access token.
    struct AssertionClaims: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// Asks `account`'s token endpoint for an access token.
    static func accessToken(
        for account: ServiceAccount, signingWith keys: JWTKeyCollection, client: HTTPClient
    ) async throws -> PushCredential.Issued {
        let now = Date.wholeSecond()
        let assertion = try await keys.sign(
            AssertionClaims(
                iss: IssuerClaim(value: account.clientEmail), scope: scope,
                aud: AudienceClaim(value: account.tokenURI), iat: IssuedAtClaim(value: now),
                exp: ExpirationClaim(value: now.addingTimeInterval(3_600))),
            kid: account.privateKeyId.map { JWKIdentifier(string: $0) })
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let reply = try await client.post(
            account.tokenURI, headers: [], contentType: "application/x-www-form-urlencoded", body: Data(form.utf8))
        let (status, body) = (reply.status, reply.body)
        struct Answer: Decodable {
            var access_token: String
            var expires_in: Double?
        }
        guard status == 200 else { throw TokenRefused(status: status) }
        let answer = try JSONDecoder().decode(Answer.self, from: body)
        let lifetime = max(60, (answer.expires_in ?? 3_600) - 60)
        return .init(value: answer.access_token, usableUntil: now.addingTimeInterval(lifetime))
    }

    /// The token endpoint answered something else than a token.
    struct TokenRefused: Error {
        var status: Int
    }

    public func handles(_ device: PushDevice) -> Bool { device.provider == .firebase }

    /// The body FCM gets for `notification`: at most `limit` bytes when it can be cut to that.
    static func body(of notification: PushNotification, limit: Int) throws -> Data {
        try PushPayload.fitting(notification, limit: limit, encode: encoded)
    }

    /// `notification`'s body for FCM, whole: `{"message":{"token","notification":{"title","body"},
    /// "data":{"channelId","messageId","badge"},"android":{"notification":{"tag",
    /// "notification_count"}},"apns":{"payload":{"aps":{"badge","thread-id"}}}}}` (FCM's data
    /// values are strings).
    static func encoded(_ notification: PushNotification) throws -> Data {
        struct Body: Encodable {
            var message: Message
        }
        struct Message: Encodable {
            var token: String
            var notification: Alert
            var data: [String: String]
            var android: Android
            var apns: APNs
        }
        struct Alert: Encodable {
            var title: String
            var body: String
        }
        struct Android: Encodable {
            var notification: AndroidNotification
        }
        struct AndroidNotification: Encodable {
            var tag: String
            var notificationCount: Int
            enum CodingKeys: String, CodingKey {
                case tag
                case notificationCount = "notification_count"
            }
        }
        struct APNs: Encodable {
            var payload: Payload
        }
        struct Payload: Encodable {
            var aps: Aps
        }
        struct Aps: Encodable {
            var badge: Int
            var threadId: String
            enum CodingKeys: String, CodingKey {
                case badge
                case threadId = "thread-id"
            }
        }
        return try PushJSON.encode(
            Body(
                message: Message(
                    token: notification.device.id,
                    notification: Alert(title: notification.title, body: notification.body),
                    data: [
                        "channelId": notification.channelId, "messageId": notification.messageId,
                        "badge": String(notification.badge),
                    ],
                    android: Android(
                        notification: AndroidNotification(
                            tag: notification.threadId, notificationCount: notification.badge)),
                    apns: APNs(payload: Payload(aps: Aps(badge: notification.badge, threadId: notification.threadId))))
            ))
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        await deliver(notification).outcome
    }

    public func deliver(_ notification: PushNotification) async -> PushResult {
        let token: String
        do {
            token = try await credential.value()
        } catch let refused as TokenRefused where refused.status != 429 && refused.status < 500 {
            // The token endpoint refused the account (a revoked key, a wrong clock): trying again
            // soon would not help.
            return PushResult(.failed, reason: PushResult.credential, status: refused.status)
        } catch {
            return PushResult(.retry, reason: PushResult.credential)
        }
        let answer: ProviderAnswer
        do {
            answer = try await client.post(
                "\(baseURL)/v1/projects/\(projectId)/messages:send",
                headers: [("authorization", "Bearer \(token)")], body: try Self.body(of: notification, limit: bodyLimit)
            )
        } catch {
            return PushResult(.retry, reason: PushResult.noAnswer)
        }
        let status = answer.status
        if (200..<300).contains(status) { return PushResult(.sent, reason: PushResult.ok, status: status) }
        let error = Failure(answer.body)
        let label =
            PushResult.known(error.errorCode ?? error.status, in: Self.reasons) ?? PushResult.http(status)
        if error.errorCodes.contains("UNREGISTERED") || error.isAboutTheToken {
            return PushResult(.gone, reason: label, status: status)
        }
        switch status {
        case 401 where error.errorCodes.contains("THIRD_PARTY_AUTH_ERROR"):
            // Firebase could not reach APNs with the project's key or certificate: the access
            // token is fine, and stays.
            return PushResult(.failed, reason: label, status: status)
        case 401:
            await credential.refused(token)
            return PushResult(.retry, reason: label, status: status)
        case 429, 500..<600: return PushResult(.retry, reason: label, status: status, retryAfter: answer.retryAfter)
        default: return PushResult(.failed, reason: label, status: status)
        }
    }

    /// What an FCM error body says: `{"error":{"code","message","status","details":[{"@type",
    /// "errorCode"} or {"@type","fieldViolations":[{"field","description"}]}]}}`.
    struct Failure {
        var status: String?
        var message: String?
        var errorCodes: [String] = []
        var fields: [String] = []

        /// The first `errorCode` of the details.
        var errorCode: String? { errorCodes.first }

        /// Whether it is an `INVALID_ARGUMENT` about the device token: a field violation of
        /// `message.token`, or a message about the registration token (what FCM answers a token
        /// that never was one, or was truncated).
        var isAboutTheToken: Bool {
            guard errorCodes.contains("INVALID_ARGUMENT") || status == "INVALID_ARGUMENT" else { return false }
            return fields.contains("message.token")
                || message?.range(of: "registration token", options: .caseInsensitive) != nil
        }

        init(_ body: Data) {
            struct Answer: Decodable {
                struct Body: Decodable {
                    struct Detail: Decodable {
                        struct Violation: Decodable { var field: String? }
                        var errorCode: String?
                        var fieldViolations: [Violation]?
                    }
                    var status: String?
                    var message: String?
                    var details: [Detail]?
                }
                var error: Body?
            }
            guard let error = (try? JSONDecoder().decode(Answer.self, from: body))?.error else { return }
            status = error.status
            message = error.message
            errorCodes = error.details?.compactMap(\.errorCode) ?? []
            fields = error.details?.flatMap { $0.fieldViolations?.compactMap(\.field) ?? [] } ?? []
        }
    }
}
