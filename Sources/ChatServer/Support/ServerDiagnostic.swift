/// Something the server could not do and went on without — a write a later one makes good, a
/// step it will take again — which an operator should see in the log (`chat-server` logs each
/// as a warning). The message says what was not done and what follows from it.
public struct ServerDiagnostic: Sendable, CustomStringConvertible {
    /// What was not done, and what follows.
    public let message: String
    /// Why: the error met, in its words.
    public let reason: String

    public var description: String { "\(message) (\(reason))" }
}
