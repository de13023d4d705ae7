import Foundation
import LiveChannels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Playground {
    /// The connection as a person reads it: "online", "connecting…", "reconnecting…", or
    /// "offline" with why, when the client knows (the server went away, the token expired).
    static func connection(of client: ChatClient) -> String {
        let state = client.connectionState
        switch state.snapshot ?? .disconnected {
        case .connected: return "online"
        case .connecting: return "connecting…"
        case .reconnecting: return "reconnecting…"
        case .disconnected:
            guard let error = state.error else { return "offline" }
            return "offline: \(words(for: error))"
        }
    }

    /// An error in words for the person at the terminal, without an app's advice.
    static func words(for error: any Error) -> String {
        switch error as? ChatError {
        case .unavailable(let reason)?: "the server cannot be reached (\(reason))"
        case .unauthorized(let reason)?: "signed out by the server (\(reason)); start again with a new token"
        case .notFound(let what)?: "not found: \(what)"
        case .rateLimited(let seconds)?:
            "too fast; try again in \(seconds.isFinite ? Int(max(1, min(seconds.rounded(.up), 3_600))) : 1) s"
        default: "\(error)"
        }
    }
}

struct UsageError: Error {
    var usage: String
}
