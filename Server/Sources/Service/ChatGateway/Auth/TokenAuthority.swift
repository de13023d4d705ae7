import ChatAPI
import ChatServer
import Foundation
import JWTKit

/// Who a connection acts for: the checks of a token and the making of one.
///
/// Tokens are JWTs signed with HS256 by the server's secret — any other `alg`, `none`
/// included, is refused — with the claims `sub` (the user id, required), `exp` (required) and
/// `iat`; `exp` and `nbf` are checked with 60 s of leeway (``defaultLeeway``). With dev tokens allowed
/// (`chat-server --dev`), `dev:USER` stands for USER.
public struct TokenAuthority: Sendable {
    /// The leeway of `exp` and `nbf` checks by default, in seconds.
    public static let defaultLeeway: TimeInterval = 60
    /// The shortest secret accepted, in bytes.
    public static let minimumSecretLength = 32

    private let keys: JWTKeyCollection?
    /// Whether `dev:USER` tokens are accepted.
    public let allowsDevTokens: Bool
    /// The leeway of `exp` and `nbf` checks, in seconds.
    public let leeway: TimeInterval
    /// The node's clock: what `exp`, `nbf` and `iat` are checked and set against.
    private let clock: any ServerClock

    /// An authority signing and checking with `secret` (at least ``minimumSecretLength`` bytes;
    /// `nil`: signed tokens are refused, only dev tokens can work).
    ///
    /// `clock` is the node's (the server's own, ``ChatServer/clock``; the system's by default);
    /// `leeway` is for tests.
    ///
    /// - Throws: `ChatError.invalidArgument` for a secret shorter than 32 bytes.
    public init(
        secret: [UInt8]?, allowsDevTokens: Bool, leeway: TimeInterval = defaultLeeway,
        clock: any ServerClock = SystemClock()
    ) async throws {
        self.leeway = leeway
        self.clock = clock
        if let secret {
            guard secret.count >= Self.minimumSecretLength else {
                throw ChatError.invalidArgument(
                    field: "secret", reason: "must be at least \(Self.minimumSecretLength) bytes, not \(secret.count)")
            }
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            self.keys = keys
        } else {
            keys = nil
        }
        self.allowsDevTokens = allowsDevTokens
    }

    /// The identity a token signs in.
    public struct Identity: Sendable, Hashable {
        /// The user the connection acts for.
        public var userId: String
        /// When the token stops being accepted (its `exp` plus the leeway); `nil` for a dev token.
        public var expiresAt: Date?

        /// `userId` signed in until `expiresAt` (a token's, or the console's session's).
        package init(userId: String, expiresAt: Date?) {
            self.userId = userId
            self.expiresAt = expiresAt
        }
    }

    /// The identity `token` signs in.
    ///
    /// - Throws: `ChatError.unauthorized` saying what is wrong: missing, a dev token without
    ///   `--dev`, malformed, another algorithm than HS256, a forged signature, expired, not yet
    ///   valid, or no user id.
    public func identity(for token: String?) async throws(ChatError) -> Identity {
        guard let token, !token.isEmpty else {
            throw .unauthorized("no token: send 'Authorization: Bearer TOKEN' or '?token=TOKEN'")
        }
        if token.hasPrefix("dev:") {
            guard allowsDevTokens else {
                throw .unauthorized("dev tokens are accepted only by a server started with --dev")
            }
            let userId = String(token.dropFirst(4))
            guard !userId.isEmpty else { throw .unauthorized("a dev token names a user: dev:USER_ID") }
            return Identity(userId: userId, expiresAt: nil)
        }
        guard let keys else {
            throw .unauthorized("this server has no secret: it accepts dev tokens only")
        }
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse(Array(token.utf8), as: TokenClaims.self).header
        } catch {
            throw .unauthorized("the token is not a valid JWT with the claims sub and exp")
        }
        guard header.alg == "HS256" else {
            throw .unauthorized(
                "the token's algorithm is \(header.alg.map { "'\($0)'" } ?? "missing"); only HS256 is accepted")
        }
        let claims: TokenClaims
        do {
            claims = try await keys.verify(token, as: TokenClaims.self)
        } catch let error as JWTError {
            switch error.errorType {
            case .signatureVerificationFailed:
                throw .unauthorized("the token's signature does not match this server's secret")
            default: throw .unauthorized("the token is malformed")
            }
        } catch {
            throw .unauthorized("the token is malformed")
        }
        guard !claims.sub.value.isEmpty else { throw .unauthorized("the token names no user (sub)") }
        let now = clock.now
        let expiresAt = claims.exp.value.addingTimeInterval(leeway)
        guard now < expiresAt else { throw .unauthorized("the token expired at \(claims.exp.value)") }
        if let notBefore = claims.nbf?.value, now < notBefore.addingTimeInterval(-leeway) {
            throw .unauthorized("the token is not valid before \(notBefore)")
        }
        return Identity(userId: claims.sub.value, expiresAt: expiresAt)
    }

    /// A token for `userId`, valid for `ttl` seconds from now.
    ///
    /// - Throws: `ChatError.notAllowed` when the authority has no secret.
    public func makeToken(for userId: String, ttl: TimeInterval) async throws -> String {
        guard let keys else { throw ChatError.notAllowed("a token is signed with a secret, and none was given") }
        let issued = Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down))
        let claims = TokenClaims(
            sub: SubjectClaim(value: userId), exp: ExpirationClaim(value: issued.addingTimeInterval(ttl.rounded())),
            iat: IssuedAtClaim(value: issued), nbf: nil)
        return try await keys.sign(claims)
    }
}
