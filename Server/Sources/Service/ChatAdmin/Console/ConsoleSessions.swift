import ChatGateway
import ChatAPI
import ChatServer
import Foundation
import JWTKit

/// The console's sign-in sessions: a session is a JWT (HS256) naming the admin and when it
/// ends, kept by the browser in an `HttpOnly`, `SameSite=Strict` cookie (``cookieName``) that
/// scripts cannot read. Sessions are signed with a key of their own, so a session is never a
/// token of the wire protocol and a token is never a session: derived from the server's secret
/// when it has one (every node of a cluster sharing the secret accepts the sessions of the
/// others), else drawn at start (`--dev` without a secret: a session lasts as long as the
/// process, on that node only).
///
/// Signing out ends a session on the server, not only in the browser (``end(_:)``): each session
/// carries an id of its own (`jti`), and an ended one is refused until it would have ended by
/// itself. On a cluster the nodes share the sessions ended (``ClusterSharedValues``): one signed
/// out on any node is refused by every node — and while the cluster's store cannot be read, a
/// session is refused rather than taken unchecked.
struct ConsoleSessions: Sendable {
    /// The cookie that carries a session.
    static let cookieName = "chat_console"
    /// How long a session lasts: 8 hours, a working day.
    static let lifetime: TimeInterval = 8 * 3600
    /// The audience every session names: what tells it from anything else signed with HS256.
    static let audience = "chat-console"

    private let keys: JWTKeyCollection
    private let clock: any ServerClock
    private let ended = EndedSessions()
    /// Where a cluster's nodes share the sessions ended (`nil`: a single node).
    private let sharedValues: (any ClusterSharedValues)?

    /// Sessions signed with a key derived from `secret` (or a random one without it), ended
    /// for every node of a cluster through `sharedValues`.
    init(
        secret: [UInt8]?, clock: any ServerClock = SystemClock(),
        sharedValues: (any ClusterSharedValues)? = nil
    ) async {
        self.sharedValues = sharedValues
        var key = secret ?? (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        key += Array("/console-session".utf8)
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        self.clock = clock
    }

    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var aud: AudienceClaim
        /// The session's own id, by which signing out ends it.
        var jti: IDClaim?

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// A new session of `userId`: the cookie's value and when it ends.
    func open(for userId: String) async throws -> (value: String, expiresAt: Date) {
        let expiresAt = Date(timeIntervalSince1970: (clock.now.timeIntervalSince1970 + Self.lifetime).rounded(.down))
        let claims = Claims(
            sub: SubjectClaim(value: userId), exp: ExpirationClaim(value: expiresAt),
            aud: AudienceClaim(value: [Self.audience]), jti: IDClaim(value: UUID().uuidString))
        return (try await keys.sign(claims), expiresAt)
    }

    /// The admin a session cookie's value names, or `nil` for a value that is not a session of
    /// this service, or one that ended.
    func userId(of value: String) async -> String? {
        await identity(of: value)?.userId
    }

    /// Who a session cookie's value signs in and until when, or `nil` for a value that is not a
    /// session of this service, or one that ended.
    func identity(of value: String) async -> TokenAuthority.Identity? {
        guard let claims = await liveClaims(of: value) else { return nil }
        return TokenAuthority.Identity(userId: claims.sub.value, expiresAt: claims.exp.value)
    }

    /// Ends the session whose cookie's value is `value` (signing out): from now on this node
    /// refuses it, and so does every node of its cluster. A value that is no live session
    /// changes nothing.
    ///
    /// - Complexity: O(sessions ended and not yet expired), to forget the expired ones.
    /// - Throws: when the cluster's store cannot record it (ended on this node only, then).
    func end(_ value: String) async throws {
        guard let claims = await liveClaims(of: value), let id = claims.jti?.value else { return }
        ended.insert(id, until: claims.exp.value, now: clock.now)
        _ = try await sharedValues?.store(
            SharedValue(value: "ended", until: claims.exp.value), for: Self.endedKey(id), replacing: nil, now: clock.now
        )
    }

    /// The key under which a cluster's nodes share that the session `id` ended.
    static func endedKey(_ id: String) -> String { "console-session-ended/\(id)" }

    /// Whether the session `id` (live until `expiry`) was ended on this node or, on a cluster,
    /// on any node; `true` too when the cluster's store cannot say.
    private func isEnded(_ id: String?, expiry: Date) async -> Bool {
        if ended.contains(id) { return true }
        guard let id, let sharedValues else { return false }
        do {
            guard try await sharedValues.value(for: Self.endedKey(id), now: clock.now) != nil else { return false }
            ended.insert(id, until: expiry, now: clock.now)
            return true
        } catch {
            return true
        }
    }

    /// The claims of a session that is this service's, not expired and not ended.
    private func liveClaims(of value: String) async -> Claims? {
        guard let claims = try? await keys.verify(value, as: Claims.self),
            claims.aud.value.contains(Self.audience), clock.now < claims.exp.value, !claims.sub.value.isEmpty,
            await !isEnded(claims.jti?.value, expiry: claims.exp.value)
        else { return nil }
        return claims
    }

    /// The session cookie's value in a `Cookie` header, if there is one.
    static func value(inCookieHeader header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that keeps `value` until `expiresAt` (or, `nil`, that ends the
    /// session in the browser).
    static func setCookie(_ value: String?, expiresAt: Date?) -> String {
        let maxAge = expiresAt.map { max(0, Int($0.timeIntervalSinceNow)) } ?? 0
        return "\(cookieName)=\(value ?? ""); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
    }
}
