import Foundation
import JWTKit

/// The claims of a signed token: who (`sub`), until when (`exp`), since when (`iat`), and not
/// before when (`nbf`, optional). Times are checked with ``TokenAuthority/leeway``.
struct TokenClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) throws {
        let now = Date()
        try exp.verifyNotExpired(currentDate: now.addingTimeInterval(-TokenAuthority.leeway))
        try nbf?.verifyNotBefore(currentDate: now.addingTimeInterval(TokenAuthority.leeway))
    }
}
