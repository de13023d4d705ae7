import Foundation

/// A token bucket: holds up to `capacity` tokens, refilled at `rate` tokens a second; an action
/// takes one. Bursts up to the capacity pass, a sustained rate above `rate` does not.
///
/// Time is a parameter; a clock going backwards refills nothing.
///
/// - Complexity: every operation O(1).
struct TokenBucket: Sendable, Hashable {
    let rate: Double
    let capacity: Double
    private var tokens: Double
    private var updatedAt: Date

    /// A full bucket.
    init(rate: Double, capacity: Double, now: Date) {
        self.rate = rate
        self.capacity = capacity
        tokens = capacity
        self.updatedAt = now
    }

    private mutating func refill(now: Date) {
        let elapsed = now.timeIntervalSince(updatedAt)
        if elapsed > 0 {
            tokens = min(capacity, tokens + elapsed * rate)
            updatedAt = now
        }
    }

    /// Seconds until a token is there, rounded up to the millisecond; `nil` when one is there
    /// now. A ten-thousandth of a token counts as there: clocks round (the server's to 2^-20 s), and
    /// waiting exactly the seconds given must be enough.
    mutating func wait(now: Date) -> TimeInterval? {
        refill(now: now)
        guard tokens < 1 - Self.tolerance else { return nil }
        return (((1 - tokens) / rate - 1e-6) * 1_000).rounded(.up) / 1_000
    }

    private static let tolerance = 0.000_1

    /// Takes a token if there is one; else returns the seconds until there is (and takes none).
    mutating func take(now: Date) -> TimeInterval? {
        if let wait = wait(now: now) { return wait }
        tokens -= 1
        return nil
    }

    /// Takes a token whether or not there is one (after the action it paid for succeeded).
    mutating func spend(now: Date) {
        refill(now: now)
        tokens -= 1
    }

    /// Whether the bucket is full at `now` (so forgetting it changes nothing).
    mutating func isFull(now: Date) -> Bool {
        refill(now: now)
        return tokens >= capacity
    }
}
