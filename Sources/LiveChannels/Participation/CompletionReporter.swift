/// Runs Amity-style completion forms on top of their `async throws` counterparts.
enum CompletionReporter {
    /// Starts `operation` in a new task at once and passes its outcome to `completion` on the
    /// main actor: `(true, nil)` on success, `(false, error)` on failure. Nothing happens after
    /// the operation when `completion` is `nil`.
    static func run(
        _ completion: (@MainActor @Sendable (Bool, (any Error)?) -> Void)?,
        operation: @escaping @Sendable () async throws -> Void
    ) {
        Task {
            do {
                try await operation()
                await completion?(true, nil)
            } catch {
                await completion?(false, error)
            }
        }
    }
}
