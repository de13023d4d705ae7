import Foundation

/// A channel's send rate limit: each member may send at most `limit` messages in any sliding
/// window of `window` seconds, until `until` (`.distantFuture` for a permanent limit).
/// Admins and moderators are exempt.
struct RateLimitPolicy: Sendable, Hashable {
    var limit: Int
    var window: TimeInterval
    var until: Date

    func isActive(at now: Date) -> Bool { until > now }

    /// How long a user whose recent sends are `sends` (ascending) must wait before sending at
    /// `now`; `nil` if they may send now.
    ///
    /// - Complexity: O(`sends.count`).
    func retryAfter(sends: [Date], now: Date) -> TimeInterval? {
        let recent = sends.filter { $0 > now - window }
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(0, oldest.addingTimeInterval(window).timeIntervalSince(now))
    }
}
