import Foundation

/// The one error type of the SDK and the server: one case per cause, each with what a developer
/// needs to act on it. `Codable`, so it crosses the wire unchanged.
///
/// A call that fails with a `ChatError` changed nothing, on the server or in the client cache.
public enum ChatError: Error, Sendable, Hashable, Codable {
    /// The thing does not exist, or the user may not see it. `what` names it, e.g.
    /// `"channel 'news'"`.
    case notFound(String)
    /// The thing exists already, e.g. a channel created with an id in use.
    case alreadyExists(String)
    /// The operation does not apply here, e.g. joining a conversation. `reason` says why.
    case notAllowed(String)
    /// The user lacks the permission, e.g. a non-admin sending to a broadcast channel.
    case forbidden(String)
    /// An argument is malformed. `field` names it; `reason` says what is wrong.
    case invalidArgument(field: String, reason: String)
    /// A limit was reached, e.g. 300,000 members or 100 KB of metadata.
    case limitExceeded(String)
    /// Too many requests; retry after `retryAfter` seconds.
    case rateLimited(retryAfter: Double)
    /// The server cannot be reached or the connection dropped; retry later.
    case unavailable(String)
    /// The server refused the credentials: a token that is missing, malformed, forged, signed
    /// for another user, or expired. The reason says which. Ask the token provider for a new
    /// token; retrying with the same one fails the same way.
    case unauthorized(String)

    /// The seconds to wait before trying again: the `retryAfter` of ``rateLimited(retryAfter:)``,
    /// `nil` for every other case.
    public var retryAfter: Double? {
        if case .rateLimited(let retryAfter) = self { return retryAfter }
        return nil
    }
}

extension ChatError: CustomStringConvertible, LocalizedError {
    /// A sentence a developer can act on.
    public var description: String {
        switch self {
        case .notFound(let what):
            "Not found: \(what) does not exist or is not visible to this user."
        case .alreadyExists(let what):
            "Already exists: \(what) is already taken; choose another id or omit it to get a generated one."
        case .notAllowed(let reason):
            "Not allowed: \(reason)."
        case .forbidden(let reason):
            "Forbidden: \(reason)."
        case .invalidArgument(let field, let reason):
            "Invalid argument '\(field)': \(reason)."
        case .limitExceeded(let what):
            "Limit exceeded: \(what)."
        case .rateLimited(let retryAfter):
            "Rate limited: too many messages; retry after \(retryAfter) seconds."
        case .unavailable(let reason):
            "Unavailable: \(reason); retry when the connection is back."
        case .unauthorized(let reason):
            "Unauthorized: \(reason); sign in again with a fresh token."
        }
    }

    /// The description: a sentence a developer can act on.
    public var errorDescription: String? { description }
}
