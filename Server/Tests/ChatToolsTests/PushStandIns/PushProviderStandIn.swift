import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import HummingbirdTLS
import JWTKit
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// APNs and FCM as a test can reach them: one HTTPS server on 127.0.0.1 that speaks HTTP/2 only
/// (ALPN `h2`), with a certificate from a ``TestCertificateAuthority``, and checks every request
/// as the providers document it. Each request it takes is reported on ``requests`` with what did
/// not match (``Taken/problems``, empty when all did).
///
/// - APNs, `POST /3/device/<hex token>`: `authorization: bearer <JWT>` whose ES256 signature
///   verifies with the key's public half under its `kid`, `iss` the team, `iat` within the last
///   hour; `apns-topic`, `apns-push-type: alert`, `apns-priority: 10`; the body's `aps.alert`
///   title and body, `aps.badge`, `aps.thread-id`, `channelId`, `messageId`.
/// - OAuth2, `POST /token`: a form with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`
///   and an RS256 `assertion` verifying with the service account's public key, whose `iss` is its
///   `client_email`, `scope` FCM's, `aud` this endpoint, lifetime at most an hour; answers an
///   access token.
/// - FCM, `POST /v1/projects/<project>/messages:send`: `Authorization: Bearer` an access token
///   it issued, the project the account's; the body's `message.token`, `notification` title and
///   body, `data.channelId`, `data.messageId`.
///
/// Answers 200, except as ``answer`` says (410 Unregistered, 400 BadDeviceToken, 404
/// UNREGISTERED, 400 INVALID_ARGUMENT of a token, 401 THIRD_PARTY_AUTH_ERROR, 429, 500, 503),
/// with the `Retry-After` of ``retryAfter(_:)`` on those; 403 `ExpiredProviderToken` for an APNs
/// token the test revoked, 401 for an FCM access token it revoked, 503 to everything while
/// ``isDown``; and as Apple and Google refuse a payload over their limit: APNs 413
/// `PayloadTooLarge` for a body over 4,096 bytes, FCM 400 `INVALID_ARGUMENT` for a message over
/// 4,096 bytes.
final class PushProviderStandIn: Sendable {
    /// One request as the stand-in took it.
    struct Taken: Sendable, CustomStringConvertible {
        var path: String
        /// `apns`, `oauth` or `fcm`.
        var kind: String
        /// The device token (APNs: the path's; FCM: `message.token`).
        var deviceToken: String
        var title: String?
        var body: String?
        var badge: Int?
        var channelId: String?
        var messageId: String?
        /// The credential it carried (APNs: the provider token; FCM: the access token).
        var credential: String
        /// What did not match the provider's documentation.
        var problems: [String]
        var status: Int
        var description: String { "\(kind) \(path) → \(status) \(problems)" }
    }

    /// What the stand-in answers a push for a device token, on its `attempt`-th push for it:
    /// a status and an error body (`nil`: 200).
    typealias Answer = @Sendable (_ deviceToken: String, _ attempt: Int) -> (Int, String)?

    let teamId: String
    let keyId: String
    let topic: String
    let projectId: String
    let clientEmail: String
    let requests: AsyncStream<Taken>
    private let report: AsyncStream<Taken>.Continuation
    private let apnsKeys: JWTKeyCollection
    private let accountKeys: JWTKeyCollection

    private struct State {
        var port = 0
        var attempts: [String: Int] = [:]
        var issued: Set<String> = []
        var revoked: Set<String> = []
        var isDown = false
        var answer: Answer?
        var retryAfter: String?
    }
    private let state = NIOLockedValueBox(State())
    private let server: Task<Void, any Error>

    /// A stand-in that checks APNs' provider tokens with `apnsPublicKeyPEM` (key id `keyId`,
    /// team `teamId`, app `topic`) and FCM's assertions with `accountPublicKeyPEM` (account
    /// `clientEmail` of `projectId`), serving `authority`'s server certificate; returns once it
    /// listens.
    init(
        authority: TestCertificateAuthority, apnsPublicKeyPEM: String, keyId: String, teamId: String, topic: String,
        accountPublicKeyPEM: String, accountKeyId: String, clientEmail: String, projectId: String
    ) async throws {
        self.teamId = teamId
        self.keyId = keyId
        self.topic = topic
        self.projectId = projectId
        self.clientEmail = clientEmail
        (requests, report) = AsyncStream.makeStream()
        apnsKeys = JWTKeyCollection()
        await apnsKeys.add(ecdsa: try ES256PublicKey(pem: apnsPublicKeyPEM), kid: JWKIdentifier(string: keyId))
        accountKeys = JWTKeyCollection()
        await accountKeys.add(
            rsa: try Insecure.RSA.PublicKey(pem: accountPublicKeyPEM), digestAlgorithm: .sha256,
            kid: JWKIdentifier(string: accountKeyId))
        let (running, started) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "push-stand-in")
        logger.logLevel = .critical
        let handler = Handler()
        let app = Application(
            responder: CallbackResponder { (request: Request, _: BasicRequestContext) in
                try await handler.respond(request)
            },
            server: try .tls(.plaintextHTTP2(), tlsConfiguration: authority.http2ServerTLS),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in started.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        server = Task { try await app.runService() }
        var ports = running.makeAsyncIterator()
        let port = await ports.next() ?? 0
        state.withLockedValue { $0.port = port }
        handler.standIn.withLockedValue { $0 = self }
    }

    deinit {
        server.cancel()
        report.finish()
    }

    /// Stops serving.
    func stop() {
        server.cancel()
        report.finish()
    }

    /// The port it listens on.
    var port: Int { state.withLockedValue { $0.port } }
    /// Its address (for `--apns-url`, `--fcm-url`).
    var url: String { "https://127.0.0.1:\(port)" }
    /// The OAuth2 token endpoint (a service account's `token_uri`).
    var tokenURI: String { "\(url)/token" }

    /// While `true`, every request gets 503 (a provider that is down).
    var isDown: Bool {
        get { state.withLockedValue { $0.isDown } }
        set { state.withLockedValue { $0.isDown = newValue } }
    }

    /// How pushes are answered (`nil`: 200 to all).
    func answer(_ answer: Answer?) { state.withLockedValue { $0.answer = answer } }

    /// The `Retry-After` header of the answers ``answer(_:)`` gives (`nil`: none).
    func retryAfter(_ value: String?) { state.withLockedValue { $0.retryAfter = value } }

    /// Refuses `credential` from now on (APNs: 403 `ExpiredProviderToken`; FCM: 401).
    func revoke(_ credential: String) { _ = state.withLockedValue { $0.revoked.insert(credential) } }

    /// Sends a request to the stand-in (Hummingbird needs the responder before the stand-in
    /// exists).
    private final class Handler: Sendable {
        let standIn = NIOLockedValueBox<PushProviderStandIn?>(nil)
        func respond(_ request: Request) async throws -> Response {
            guard let standIn = standIn.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await standIn.respond(request)
        }
    }

    private func respond(_ request: Request) async throws -> Response {
        let body = Data(buffer: try await request.body.collect(upTo: 1 << 20))
        let path = request.uri.path
        if isDown {
            return reply(
                Taken(path: path, kind: "down", deviceToken: "", credential: "", problems: [], status: 503), "")
        }
        guard request.method == .post else {
            return reply(
                Taken(path: path, kind: "?", deviceToken: "", credential: "", problems: ["not a POST"], status: 405), ""
            )
        }
        if path.hasPrefix("/3/device/") { return try await apns(request, path: path, body: body) }
        if path == "/token" { return try await oauth(request, body: body) }
        if path.hasPrefix("/v1/projects/") && path.hasSuffix("/messages:send") {
            return fcm(request, path: path, body: body)
        }
        return reply(
            Taken(path: path, kind: "?", deviceToken: "", credential: "", problems: ["no such path"], status: 404), "")
    }

    private func header(_ request: Request, _ name: String) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }

    /// The answer the test set for a push to `token`.
    private func answerFor(_ token: String) -> (Int, String)? {
        state.withLockedValue { state in
            state.attempts[token, default: 0] += 1
            return state.answer?(token, state.attempts[token]!)
        }
    }

    private struct ProviderToken: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private func apns(_ request: Request, path: String, body: Data) async throws -> Response {
        var problems: [String] = []
        let token = String(path.dropFirst("/3/device/".count))
        if token.isEmpty || token.count % 2 != 0 || !token.allSatisfy(\.isHexDigit) {
            problems.append("the device token is not hex")
        }
        let authorization = header(request, "authorization") ?? ""
        let jwt = authorization.hasPrefix("bearer ") ? String(authorization.dropFirst(7)) : ""
        do {
            let claims = try await apnsKeys.verify(jwt, as: ProviderToken.self)
            if claims.iss.value != teamId { problems.append("iss is not the team id") }
            if abs(claims.iat.value.timeIntervalSinceNow) > 3_600 { problems.append("iat is not within the hour") }
            if try header(jwtPart(jwt, 0), "kid") != keyId { problems.append("kid is not the key id") }
            if try !Self.wholeSeconds(jwtPart(jwt, 1), "iat") { problems.append("iat is not whole seconds") }
        } catch {
            problems.append("the provider token does not verify: \(error)")
        }
        if header(request, "apns-topic") != topic { problems.append("apns-topic is not \(topic)") }
        if header(request, "apns-push-type") != "alert" { problems.append("apns-push-type is not alert") }
        if header(request, "apns-priority") != "10" { problems.append("apns-priority is not 10") }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        let aps = object["aps"] as? [String: Any] ?? [:]
        let alert = aps["alert"] as? [String: Any] ?? [:]
        var taken = Taken(
            path: path, kind: "apns", deviceToken: token, title: alert["title"] as? String,
            body: alert["body"] as? String, badge: aps["badge"] as? Int, channelId: object["channelId"] as? String,
            messageId: object["messageId"] as? String, credential: jwt, problems: problems, status: 200)
        if taken.title == nil || taken.body == nil || taken.badge == nil || aps["thread-id"] as? String == nil
            || taken.channelId == nil || taken.messageId == nil
        {
            taken.problems.append("the payload misses a field: \(String(decoding: body, as: UTF8.self))")
        }
        if !taken.problems.isEmpty {
            taken.status = 403
            return reply(taken, #"{"reason":"InvalidProviderToken"}"#)
        }
        if state.withLockedValue({ $0.revoked.contains(jwt) }) {
            taken.status = 403
            return reply(taken, #"{"reason":"ExpiredProviderToken"}"#)
        }
        if body.count > Self.payloadLimit {
            taken.status = 413
            return reply(taken, #"{"reason":"PayloadTooLarge"}"#)
        }
        if let (status, error) = answerFor(token) {
            taken.status = status
            return reply(taken, error, retryAfter: state.withLockedValue { $0.retryAfter })
        }
        return reply(taken, "")
    }

    private struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) throws { try exp.verifyNotExpired() }
    }

    private func oauth(_ request: Request, body: Data) async throws -> Response {
        var problems: [String] = []
        if header(request, "content-type") != "application/x-www-form-urlencoded" {
            problems.append("not a form")
        }
        var form: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        if form["grant_type"] != "urn:ietf:params:oauth:grant-type:jwt-bearer" { problems.append("grant_type") }
        do {
            let claims = try await accountKeys.verify(form["assertion"] ?? "", as: Assertion.self)
            if claims.iss.value != clientEmail { problems.append("iss is not the client_email") }
            if claims.scope != "https://www.googleapis.com/auth/firebase.messaging" { problems.append("scope") }
            if claims.aud.value != [tokenURI] { problems.append("aud is not the token_uri") }
            if claims.exp.value.timeIntervalSince(claims.iat.value) > 3_600 { problems.append("lives over an hour") }
            if try !Self.wholeSeconds(jwtPart(form["assertion"] ?? "", 1), "iat", "exp") {
                problems.append("iat or exp is not whole seconds")
            }
        } catch {
            problems.append("the assertion does not verify: \(error)")
        }
        guard problems.isEmpty else {
            return reply(
                Taken(path: "/token", kind: "oauth", deviceToken: "", credential: "", problems: problems, status: 400),
                #"{"error":"invalid_grant"}"#)
        }
        let access = "ya29.stand-in-\(UUID().uuidString)"
        state.withLockedValue { _ = $0.issued.insert(access) }
        return reply(
            Taken(path: "/token", kind: "oauth", deviceToken: "", credential: access, problems: [], status: 200),
            #"{"access_token":"\#(access)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    private func fcm(_ request: Request, path: String, body: Data) -> Response {
        var problems: [String] = []
        if path != "/v1/projects/\(projectId)/messages:send" { problems.append("not the account's project") }
        let authorization = header(request, "authorization") ?? ""
        let access = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        let (issued, revoked) = state.withLockedValue { ($0.issued.contains(access), $0.revoked.contains(access)) }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        let message = object["message"] as? [String: Any] ?? [:]
        let notification = message["notification"] as? [String: Any] ?? [:]
        let data = message["data"] as? [String: Any] ?? [:]
        var taken = Taken(
            path: path, kind: "fcm", deviceToken: message["token"] as? String ?? "",
            title: notification["title"] as? String, body: notification["body"] as? String,
            badge: (data["badge"] as? String).flatMap { Int($0) }, channelId: data["channelId"] as? String,
            messageId: data["messageId"] as? String, credential: access, problems: problems, status: 200)
        if taken.deviceToken.isEmpty || taken.title == nil || taken.body == nil || taken.channelId == nil
            || taken.messageId == nil
        {
            taken.problems.append("the message misses a field: \(String(decoding: body, as: UTF8.self))")
        }
        if !issued || revoked {
            if !issued { taken.problems.append("not an access token the stand-in issued") }
            taken.status = 401
            return reply(taken, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
        }
        if !taken.problems.isEmpty {
            taken.status = 400
            return reply(taken, #"{"error":{"code":400,"status":"INVALID_ARGUMENT"}}"#)
        }
        if body.count > Self.payloadLimit {
            taken.status = 400
            return reply(taken, Self.fcmTooBig)
        }
        if let (status, error) = answerFor(taken.deviceToken) {
            taken.status = status
            return reply(taken, error, retryAfter: state.withLockedValue { $0.retryAfter })
        }
        return reply(taken, #"{"name":"projects/\#(projectId)/messages/1"}"#)
    }

    /// Reports `taken` and answers its status with `body` (and `Retry-After`, when given).
    private func reply(_ taken: Taken, _ body: String, retryAfter: String? = nil) -> Response {
        report.yield(taken)
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter { headers[.retryAfter] = retryAfter }
        return Response(
            status: .init(code: taken.status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The most bytes of body either provider takes (APNs' payload; FCM's message, counted here
    /// as its whole request body).
    static let payloadLimit = 4_096

    /// Whether each of `names` in `claims` is a whole number of seconds, as the providers
    /// document (`1712345678`, not `1712345678.25`).
    private static func wholeSeconds(_ claims: [String: Any], _ names: String...) -> Bool {
        names.allSatisfy { name in (claims[name] as? Double).map { $0 == $0.rounded() } ?? false }
    }

    /// Part `index` of a JWT (0 the header, 1 the claims), decoded.
    private func jwtPart(_ jwt: String, _ index: Int) throws -> [String: Any] {
        let parts = jwt.split(separator: ".")
        var part = String(parts.count > index ? parts[index] : "")
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        return (try JSONSerialization.jsonObject(with: Data(base64Encoded: part) ?? Data())) as? [String: Any] ?? [:]
    }

    private func header(_ object: [String: Any], _ name: String) -> String? { object[name] as? String }

    /// An APNs error answer: `{"reason":…}`.
    static func apnsError(_ reason: String) -> String { #"{"reason":"\#(reason)"}"# }

    /// FCM's answer for a token that is not a registration token (as it answers a truncated one).
    static let fcmInvalidToken = #"""
        {"error":{"code":400,"message":"The registration token is not a valid FCM registration token","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"},{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.token","description":"Invalid registration token"}]}]}}
        """#

    /// FCM's answer for a message over its size limit.
    static let fcmTooBig = #"""
        {"error":{"code":400,"message":"Message is too big","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}
        """#

    /// FCM's answer when Firebase cannot reach APNs with the project's APNs key or certificate.
    static let fcmThirdPartyAuthError = #"""
        {"error":{"code":401,"message":"Auth error from APNS or Web Push Service","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"THIRD_PARTY_AUTH_ERROR"}]}}
        """#

    /// FCM's answer when it is overloaded (with a `Retry-After` set by ``retryAfter(_:)``).
    static let fcmUnavailable = #"""
        {"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNAVAILABLE"}]}}
        """#

    /// FCM's answer for a token that is no longer registered.
    static let fcmUnregistered = #"""
        {"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}
        """#
}
