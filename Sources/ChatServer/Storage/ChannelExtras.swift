import ChatAPI
import Foundation

/// The moderation state of a channel that the storage keeps beside its own fields: bans,
/// mutes, the channel mute and rate limit, content filters, flags and the rate limit's recent
/// sends. Written only when one of them changed (``ChannelRecord/extrasChanged``), not with
/// every message.
struct ChannelExtras: Sendable, Hashable {
    var bans: [String: BanRecord]
    var mutes: [String: Date]
    var mutedUntil: Date?
    var rateLimit: RateLimitPolicy?
    var messageFlags: [Int: Set<String>]
    var userFlags: [String: Set<String>]
    var moderationSettings: ModerationSettings
    var recentSends: [String: [Date]]

    init(
        bans: [String: BanRecord], mutes: [String: Date], mutedUntil: Date?, rateLimit: RateLimitPolicy?,
        messageFlags: [Int: Set<String>], userFlags: [String: Set<String>], moderationSettings: ModerationSettings,
        recentSends: [String: [Date]]
    ) {
        self.bans = bans
        self.mutes = mutes
        self.mutedUntil = mutedUntil
        self.rateLimit = rateLimit
        self.messageFlags = messageFlags
        self.userFlags = userFlags
        self.moderationSettings = moderationSettings
        self.recentSends = recentSends
    }

    init(of record: ChannelRecord) {
        bans = record.bans
        mutes = record.mutes
        mutedUntil = record.mutedUntil
        rateLimit = record.rateLimit
        messageFlags = record.messageFlags
        userFlags = record.userFlags
        moderationSettings = record.moderationSettings
        recentSends = record.recentSends
    }

    /// Puts these values into `record` (whose `extrasChanged` stays false).
    func apply(to record: inout ChannelRecord) {
        record.bans = bans
        record.mutes = mutes
        record.timedMutes = Set(mutes.filter { $0.value != .distantFuture }.keys)
        record.mutedUntil = mutedUntil
        record.rateLimit = rateLimit
        record.messageFlags = messageFlags
        record.userFlags = userFlags
        record.moderationSettings = moderationSettings
        record.recentSends = recentSends
        record.extrasChanged = false
    }
}
