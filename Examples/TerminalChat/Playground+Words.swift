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
            if case .unavailable? = error as? ChatError { return "offline: the server cannot be reached" }
            return "offline: \(words(for: error))"
        }
    }

    /// An error in words for the person at the terminal: what happened, without the SDK's
    /// advice to a developer (`ChatError`'s descriptions say "call connect() first", "retry
    /// when the connection is back" — to a program, not to a person typing).
    static func words(for error: any Error) -> String {
        guard let error = error as? ChatError else { return "\(error)" }
        switch error {
        case .unavailable:
            return "the server cannot be reached now; the chat reconnects by itself (the pane says when it is online)"
        case .unauthorized(let reason): return "signed out by the server (\(reason)); start again with a new token"
        case .notFound(let what): return "not found: \(what)"
        case .alreadyExists(let what): return "\(what) exists already"
        case .notAllowed(let reason): return "not allowed: \(reason)"
        case .forbidden(let reason): return "not permitted: \(reason)"
        case .invalidArgument(let field, let reason): return invalid(field, reason)
        case .limitExceeded(let what): return "too much: \(what)"
        case .rateLimited(let seconds):
            return "too fast; try again in \(seconds.isFinite ? Int(max(1, min(seconds.rounded(.up), 3_600))) : 1) s"
        }
    }

    /// What was wrong with a value, in a person's words: the field named by what it is to the
    /// person (`text` is "the message"), or not at all where the reason says it already
    /// (`userIds`: "'dave' is not a member of channel 'team'").
    static func invalid(_ field: String, _ reason: String) -> String {
        let nouns = [
            "text": "the message", "messageId": "the message id", "channelId": "the channel id",
            "displayName": "the name", "period": "the period", "deviceToken": "the push token", "metadata": "the data",
            "blockedWords": "the blocked words", "pageSize": "the count",
        ]
        if let noun = nouns[field] { return "\(noun) \(reason)" }
        return reason
    }
}
