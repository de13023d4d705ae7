/// How a client waits between attempts to reconnect after its connection dropped. Injected so
/// tests (and apps with their own network monitoring) control time.
public struct ReconnectPolicy: Sendable {
    /// Waits before reconnect attempt `attempt` (1 for the first). Throwing (for example on task
    /// cancellation) stops reconnecting.
    public var wait: @Sendable (_ attempt: Int) async throws -> Void
    /// How many attempts to make before giving up (the client then reports `.disconnected`).
    public var maximumAttempts: Int

    /// A policy that tries at most `maximumAttempts` times, calling `wait` with the attempt number (1, 2, …) before each one.
    public init(maximumAttempts: Int = 20, wait: @escaping @Sendable (_ attempt: Int) async throws -> Void) {
        self.maximumAttempts = maximumAttempts
        self.wait = wait
    }

    /// Exponential backoff: 100 ms, 200 ms, 400 ms … capped at 5 s (the SDK's one backoff,
    /// `Backoff.reconnect`).
    public static let exponential = ReconnectPolicy { attempt in
        try await Task.sleep(for: .seconds(Backoff.reconnect.delay(afterFailures: attempt)))
    }

    /// Reconnects at once, without waiting (tests).
    public static let immediate = ReconnectPolicy { _ in await Task.yield() }
}
