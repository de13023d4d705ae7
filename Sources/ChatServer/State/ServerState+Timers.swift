import ChatAPI
import Foundation

extension ServerState {
    /// Ends everything that has expired at `now` and tells whom it concerns: typing indicators
    /// (`typingStopped`), member mutes (`memberUnmuted`), channel mutes and rate limits
    /// (`channelUpdated`). The server calls it before every operation and on every clock advance.
    ///
    /// - Complexity: O(pending deadlines in channels that have any), not O(channels).
    mutating func expireTimers(now: Date) {
        for channelId in timedChannels.sorted() {
            guard var channel = channels[channelId] else { continue }
            for (userId, expiry) in channel.typing.sorted(by: { $0.key < $1.key }) where expiry <= now {
                channel.typing[userId] = nil
                emit(.typingStopped(channelId: channelId, userId: userId), to: .channelMembers(channelId))
            }
            for userId in channel.timedMutes.sorted() where !(channel.members[userId]?.isMuted(at: now) ?? false) {
                channel.timedMutes.remove(userId)
                channel.members[userId]?.mutedUntil = nil
                emit(.memberUnmuted(channelId: channelId, userId: userId), to: .channelMembers(channelId))
            }
            var summaryChanged = false
            if let until = channel.mutedUntil, until <= now {
                channel.mutedUntil = nil
                summaryChanged = true
            }
            if let limit = channel.rateLimit, !limit.isActive(at: now) {
                channel.rateLimit = nil
                channel.recentSends = [:]
                summaryChanged = true
            }
            if summaryChanged {
                emit(.channelUpdated(channelId: channelId), to: .channelViewers(channelId))
            }
            channels[channelId] = channel
            trackDeadlines(of: channelId)
        }
    }

    /// Keeps ``timedChannels`` in step with the channel's deadlines.
    mutating func trackDeadlines(of channelId: String) {
        if channels[channelId]?.hasDeadlines ?? false {
            timedChannels.insert(channelId)
        } else {
            timedChannels.remove(channelId)
        }
    }
}
