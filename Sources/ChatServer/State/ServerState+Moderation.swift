import ChatAPI
import Foundation

/// The moderation rules — they cannot be dodged:
///
/// - **Moderation belongs to the (channel, user) pair**, not to a membership. A ban, a mute and
///   the user's rate-limit window survive leaving, rejoining, removal and re-adding; a ban ends
///   only by unban, a mute by unmute or expiry, a window by time (or a change of the limit).
/// - **Someone can always unban.** Admins may always moderate (ban, unban, mute, unmute, set
///   roles and rate limits) in every channel that has moderation, banned or not, member or
///   not; the console too. A moderator who is not an admin cannot ban themselves when no other
///   moderator would remain (`notAllowed`).
/// - Moderators of community, live, standard and private channels moderate; broadcast channels
///   are moderated by admins only; conversations have no moderation (`notAllowed`).
extension ServerState {
    /// Bans users: members lose their membership (with roles, reading and typing) and nobody
    /// banned can join or be added until unbanned. Banning non-members is allowed. Mutes and
    /// rate-limit windows stay (see the rules above).
    ///
    /// - Throws: `invalidArgument(field: "userIds")`; `notFound`; `notAllowed` (conversation, or
    ///   the caller is the last moderator and bans themselves); `forbidden`.
    mutating func banMembers(_ userIds: [String], in channelId: String, by caller: Caller, now: Date) throws(ChatError)
    {
        try InputCheck.ids(userIds, field: "userIds")
        try requireKnownUsers(userIds, field: "userIds")
        let channel = try authorizedRecord(channelId, .banMember, by: caller, now: now)
        try refuseSelfBanOfLastModerator(userIds, in: channel, by: caller)
        let newlyBanned = Set(userIds).filter { !channel.isBanned($0) }.sorted()
        let leaving = Set(channel.members(among: newlyBanned))
        _ = consume channel
        for userId in newlyBanned {
            if leaving.contains(userId) { removeMember(userId, from: channelId, now: now) }
            channels[channelId]!.bans[userId] = BanRecord(userId: userId, bannedAt: now)
            emitMembershipChange(
                .memberBanned(channelId: channelId, userId: userId), channelId: channelId, userId: userId)
        }
    }

    /// Lifts bans. The users do not become members again; they may join or be added. Admins may
    /// always unban, themselves included.
    ///
    /// - Throws: as ``banMembers(_:in:by:now:)``.
    mutating func unbanMembers(_ userIds: [String], in channelId: String, by caller: Caller, now: Date)
        throws(ChatError)
    {
        try InputCheck.ids(userIds, field: "userIds")
        try requireKnownUsers(userIds, field: "userIds")
        let banned = Set(try authorizedRecord(channelId, .banMember, by: caller, now: now).bans.keys)
        for userId in Set(userIds).intersection(banned).sorted() {
            channels[channelId]!.bans[userId] = nil
            emit(.memberUnbanned(channelId: channelId, userId: userId), to: .channelMembers(channelId, also: [userId]))
        }
    }

    /// Mutes members for `period` seconds (-1: until unmuted); muted members cannot send.
    /// `period == nil` unmutes. The mute stays with the user in this channel if they leave and
    /// rejoin (or are banned and unbanned) before it ends.
    ///
    /// Moderators and admins send whatever mutes say, so muting one is refused (`notAllowed`)
    /// rather than reported done without effect; unmuting anyone is allowed.
    ///
    /// - Throws: `invalidArgument` (`period`, `userIds`); `notFound`; `notAllowed` (also: a
    ///   moderator or admin among `userIds`); `forbidden`.
    mutating func muteMembers(
        _ userIds: [String], period: TimeInterval?, in channelId: String, by caller: Caller, now: Date
    ) throws(ChatError) {
        if let period { try InputCheck.period(period, field: "period") }
        _ = try membersToModerate(userIds, in: channelId, action: .muteMember, by: caller, now: now)
        if period != nil { try refuseMutingTheExempt(userIds, in: channelId) }
        let until = period.map { $0 == -1 ? Date.distantFuture : now + $0 }
        for userId in Set(userIds).sorted() {
            channels[channelId]!.mutes[userId] = until
            if until.map({ $0 != .distantFuture }) ?? false {
                channels[channelId]!.timedMutes.insert(userId)
            } else {
                channels[channelId]!.timedMutes.remove(userId)
            }
            let change: StateChange =
                until == nil
                ? .memberUnmuted(channelId: channelId, userId: userId)
                : .memberMuted(channelId: channelId, userId: userId)
            emit(change, to: .channelMembers(channelId))
        }
        trackDeadlines(of: channelId)
    }

    /// Mutes the whole channel for `period` seconds (-1: until unmuted): only moderators and
    /// admins can send meanwhile. `period == nil` unmutes.
    ///
    /// - Throws: `invalidArgument(field: "period")`; `notFound`; `notAllowed`; `forbidden`.
    mutating func muteChannel(_ channelId: String, period: TimeInterval?, by caller: Caller, now: Date)
        throws(ChatError)
    {
        if let period { try InputCheck.period(period, field: "period") }
        _ = try authorizedRecord(channelId, .muteChannel, by: caller, now: now)
        channels[channelId]!.mutedUntil = period.map { $0 == -1 ? Date.distantFuture : now + $0 }
        modifyChannel(channelId) { info in
            info.isMuted = period != nil
            info.updatedAt = now
        }
        trackDeadlines(of: channelId)
        emit(.channelUpdated(channelId: channelId), to: .channelViewers(channelId))
    }

    /// Limits each member to `limit` messages per `window` seconds, for `period` seconds
    /// (-1: until removed). `limit == nil` removes the rate limit. Each user's window counts
    /// their sends in the channel whether or not they left and rejoined meanwhile; setting or
    /// removing the limit starts every window afresh.
    ///
    /// - Throws: `invalidArgument` (`period` beyond ``InputLimits/maxPeriod``, `limit` beyond
    ///   1…``InputLimits/maxRateLimitMessages``, `window` beyond ``InputLimits/maxRateLimitWindow``); `notFound`;
    ///   `notAllowed`; `forbidden`.
    mutating func setRateLimit(
        _ channelId: String, period: TimeInterval, limit: Int?, window: TimeInterval, by caller: Caller, now: Date
    ) throws(ChatError) {
        var policy: RateLimitPolicy?
        if let limit {
            try InputCheck.period(period, field: "period")
            try InputCheck.rateLimitMessages(limit)
            try InputCheck.rateLimitWindow(window)
            policy = RateLimitPolicy(limit: limit, window: window, until: period == -1 ? .distantFuture : now + period)
        }
        _ = try authorizedRecord(channelId, .manageRateLimit, by: caller, now: now)
        channels[channelId]!.rateLimit = policy
        channels[channelId]!.recentSends = [:]
        modifyChannel(channelId) { info in
            info.setRateLimit(policy)
            info.updatedAt = now
        }
        trackDeadlines(of: channelId)
        emit(.channelUpdated(channelId: channelId), to: .channelViewers(channelId))
    }

    /// Refuses a mute of members a mute would not stop: the channel's moderators and admins.
    ///
    /// - Throws: `notAllowed` naming the first such user.
    private func refuseMutingTheExempt(_ userIds: [String], in channelId: String) throws(ChatError) {
        let channel = channels[channelId]!
        for userId in Set(userIds).sorted() where isAdmin(userId) || channel.members[userId]?.isModerator == true {
            throw .notAllowed(
                "'\(userId)' moderates channel '\(channelId)' or is an admin, and may send whatever a mute says; remove the moderator role first"
            )
        }
    }

    /// Refuses a ban by which a moderator (not an admin, not the console) would ban themselves
    /// and leave the channel with no moderator among its members.
    ///
    /// - Throws: `notAllowed`.
    private func refuseSelfBanOfLastModerator(_ userIds: [String], in channel: ChannelRecord, by caller: Caller)
        throws(ChatError)
    {
        guard let userId = caller.userId, !isAdmin(userId), userIds.contains(userId) else { return }
        let banned = Set(userIds)
        let remaining = channel.members.values.contains { $0.isModerator && !banned.contains($0.userId) }
        if !remaining {
            throw .notAllowed(
                "you are the last moderator of channel '\(channel.id)'; banning yourself would leave no member able to unban. Make another member a moderator first"
            )
        }
    }
}

extension ServerState {
    /// Performs a moderation request as the console (permissions bypassed; the rules of channel
    /// types are not): removing, banning, unbanning, muting (`period` seconds, `-1` until
    /// unmuted) or unmuting members, deleting a message, or replacing the channel's content
    /// filters (``ModerationSettings``). Returns the deleted message, else `nil`.
    ///
    /// - Throws: `invalidArgument` (`request`) for any other request; else the request's own
    ///   errors (`notFound`, `notAllowed` for a conversation, `invalidArgument`).
    mutating func moderate(_ request: ChatRequest, now: Date) throws(ChatError) -> Message? {
        switch request {
        case .removeMembers(let channelId, let userIds):
            try removeMembers(userIds, from: channelId, by: .console, now: now)
        case .banMembers(let channelId, let userIds):
            try banMembers(userIds, in: channelId, by: .console, now: now)
        case .unbanMembers(let channelId, let userIds):
            try unbanMembers(userIds, in: channelId, by: .console, now: now)
        case .muteMembers(let channelId, let userIds, let period):
            try muteMembers(userIds, period: period, in: channelId, by: .console, now: now)
        case .unmuteMembers(let channelId, let userIds):
            try muteMembers(userIds, period: nil, in: channelId, by: .console, now: now)
        case .deleteMessage(let channelId, let messageId):
            return try deleteMessage(messageId, in: channelId, by: .console, now: now)
        case .setModerationSettings(let channelId, let settings):
            try setModerationSettings(settings, of: channelId, by: .console, now: now)
        default:
            throw .invalidArgument(
                field: "request",
                reason: "the console moderates with member, message and moderation-settings requests only")
        }
        return nil
    }
}
