/// Runs `body` in a main-actor task and reports how it ended to `completion`: `nil` when it
/// returned, else the error. How every completion-handler form of a controller is made from its
/// `async` form.
@MainActor
func report(
    to completion: (@MainActor (_ error: (any Error)?) -> Void)?, _ body: @escaping @MainActor () async throws -> Void
) {
    Task { @MainActor in
        do {
            try await body()
            completion?(nil)
        } catch {
            completion?(error)
        }
    }
}
