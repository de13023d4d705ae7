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

    /// Exponential backoff: 100 ms, 200 ms, 400 ms … capped at 5 s.
    public static let exponential = ReconnectPolicy { attempt in
        let milliseconds = min(5_000, 100 << min(attempt - 1, 6))
        try await Task.sleep(for: .milliseconds(milliseconds))
    }

    /// Reconnects at once, without waiting (tests).
    public static let immediate = ReconnectPolicy { _ in await Task.yield() }

    /// The longest a server's `retryAfter` is waited for before a reconnect: an hour.
    static let longestServerWait: Double = 3_600

    /// How long to wait for a server that said `retryAfter` seconds: that, within 0…an hour
    /// (NaN and negative: 0). A server's number never traps the client.
    static func serverWait(_ retryAfter: Double) -> Double {
        guard retryAfter.isFinite, retryAfter > 0 else { return 0 }
        return min(retryAfter, longestServerWait)
    }
}
