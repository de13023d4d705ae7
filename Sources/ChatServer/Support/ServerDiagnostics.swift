import Locking

/// Where a server reports its ``ServerDiagnostic``s (``ChatServer/reportDiagnostics(to:)``):
/// nowhere until told. Lock order: a leaf (the handler runs after the lock is released).
final class ServerDiagnostics: Sendable {
    private let handler = Lock<(@Sendable (ServerDiagnostic) -> Void)?>(nil, rank: .leaf)

    /// From now on, each report goes to `handler` (`nil`: nowhere).
    func deliver(to handler: (@Sendable (ServerDiagnostic) -> Void)?) {
        self.handler.withLock { $0 = handler }
    }

    /// Reports that `message` happened because of `error`.
    func report(_ message: String, _ error: any Error) {
        let handler = handler.withLock { $0 }
        handler?(ServerDiagnostic(message: message, reason: "\(error)"))
    }
}
