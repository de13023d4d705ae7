import Foundation
import JWTKit

/// The claims of a signed token: who (`sub`), until when (`exp`), since when (`iat`), and not
/// before when (`nbf`, optional). ``TokenAuthority`` checks the times, with its leeway and
/// clock, once the signature is verified.
struct TokenClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
