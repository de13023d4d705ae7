import ChatAPI
import Foundation

extension ServerState {
    /// Ends everything that has expired at `now` and tells whom it concerns: typing indicators
    /// (`typingStopped`), member mutes (`memberUnmuted`), channel mutes and rate limits
    /// (`channelUpdated`). The server calls it before every operation and on every clock advance.
    ///
    /// - Complexity: O(1) while nothing can be due (``earliestDeadlineBound``); else O(pending
    /// deadlines in channels that have any), not O(channels).
    mutating func expireTimers(now: Date) {
        guard hasTimerDue(at: now) else { return }
        defer { earliestDeadlineBound = nextDeadline ?? .distantFuture }
        for channelId in timedChannels.sorted() {
            guard let channel = channels[channelId] else { continue }
            let stoppedTyping = channel.typing.filter { $0.value <= now }.keys.sorted()
            let unmuted = channel.timedMutes.filter { !channel.isUserMuted($0, at: now) }.sorted()
            let muteEnded = channel.mutedUntil.map { $0 <= now } ?? false
            let limitEnded = channel.rateLimit.map { !$0.isActive(at: now) } ?? false
            // The record changes in place below; no copy may be alive then (copy-on-write).
            _ = consume channel
            for userId in stoppedTyping {
                channels[channelId]!.typing[userId] = nil
                emit(.typingStopped(channelId: channelId, userId: userId), to: .channelMembers(channelId))
            }
            for userId in unmuted {
                channels[channelId]!.timedMutes.remove(userId)
                channels[channelId]!.mutes[userId] = nil
                emit(.memberUnmuted(channelId: channelId, userId: userId), to: .channelMembers(channelId))
            }
            if muteEnded {
                channels[channelId]!.mutedUntil = nil
                modifyChannel(channelId) { $0.isMuted = false }
            }
            if limitEnded {
                channels[channelId]!.rateLimit = nil
                channels[channelId]!.recentSends = [:]
                modifyChannel(channelId) { $0.setRateLimit(nil) }
            }
            if muteEnded || limitEnded {
                emit(.channelUpdated(channelId: channelId), to: .channelViewers(channelId))
            }
            trackDeadlines(of: channelId)
        }
    }

    /// Keeps ``timedChannels`` in step with the channel's deadlines, and notes its earliest
    /// one for the engine's wake-up (``newDeadline``).
    mutating func trackDeadlines(of channelId: String) {
        if channels[channelId]?.hasDeadlines ?? false {
            timedChannels.insert(channelId)
            if let deadline = channels[channelId]?.nextDeadline { noteDeadline(deadline) }
        } else {
            timedChannels.remove(channelId)
        }
    }

    /// Whether a timer may be due at `now` (``earliestDeadlineBound``): `false` means none is.
    func hasTimerDue(at now: Date) -> Bool { earliestDeadlineBound <= now }

    /// Notes a deadline for the engine's wake-up (and for ``earliestDeadlineBound``).
    mutating func noteDeadline(_ deadline: Date) {
        if deadline < earliestDeadlineBound { earliestDeadlineBound = deadline }
        if newDeadline.map({ deadline < $0 }) ?? true { newDeadline = deadline }
    }

    /// The deadlines noted since the last call, the earliest; clears them.
    mutating func takeNewDeadline() -> Date? {
        defer { newDeadline = nil }
        return newDeadline
    }

    /// The earliest deadline of every channel that has one.
    ///
    /// - Complexity: O(deadlines in channels that have any).
    var nextDeadline: Date? {
        timedChannels.compactMap { channels[$0]?.nextDeadline }.min()
    }
}
