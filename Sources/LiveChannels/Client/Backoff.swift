import Foundation

/// The SDK's one exponential backoff: how long to wait after the `n`th failure in a row —
/// ``first``, doubling per failure, at most ``longest`` — and how long to wait for a server that
/// said `retryAfter` (``serverWait(_:)``). Reconnecting (``ReconnectPolicy/exponential``) and the
/// outbox's tries (`MessageOutbox`) both wait by it.
struct Backoff: Sendable, Hashable {
    /// The wait after the first failure, in seconds.
    var first: Double
    /// The longest wait, in seconds.
    var longest: Double

    /// Reconnecting after a lost connection: 100 ms, 200 ms, 400 ms … at most 5 s.
    static let reconnect = Backoff(first: 0.1, longest: 5)
    /// The outbox's next try after one that failed for want of a connection: 0.5 s, 1 s, 2 s …
    /// at most 30 s.
    static let outbox = Backoff(first: 0.5, longest: 30)

    /// The wait after `failures` failures in a row (1 for the first), in seconds.
    ///
    /// - Complexity: O(1); any count, however large, is safe (the doubling stops at 2¹⁶).
    func delay(afterFailures failures: Int) -> Double {
        min(longest, first * pow(2, Double(min(max(failures, 1) - 1, 16))))
    }

    /// The longest a server's `retryAfter` is waited for: an hour.
    static let longestServerWait: Double = 3_600

    /// How long to wait for a server that said `retryAfter` seconds: that, within 0…an hour
    /// (NaN and negative: 0). A server's number never traps the client (a `Duration` cannot hold
    /// every `Double`).
    static func serverWait(_ retryAfter: Double) -> Double {
        guard retryAfter.isFinite, retryAfter > 0 else { return 0 }
        return min(retryAfter, longestServerWait)
    }
}
