import ChatAPI

extension Channel {
    /// Shows `policy` (or no rate limit) in the channel's public fields.
    mutating func setRateLimit(_ policy: RateLimitPolicy?) {
        isRateLimited = policy != nil
        rateLimit = policy?.limit ?? 0
        rateLimitWindow = policy?.window ?? 0
    }
}
