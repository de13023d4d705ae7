import ChatAPI
import Foundation

extension ServerState {
    /// Adds users to a channel. Users who are members already are skipped.
    ///
    /// - Throws: `invalidArgument(field: "userIds")` for malformed or unknown ids; `notFound`;
    ///   `notAllowed` (conversation, deleted); `forbidden` (no permission, or a named user is
    ///   banned); `limitExceeded` (300,000 members).
    mutating func addMembers(_ userIds: [String], to channelId: String, by caller: Caller, now: Date) throws(ChatError)
    {
        try InputCheck.ids(userIds, field: "userIds")
        try requireKnownUsers(userIds, field: "userIds")
        let channel = try authorizedRecord(channelId, .addMember, by: caller, now: now)
        if let banned = userIds.first(where: channel.isBanned) {
            throw .forbidden("user '\(banned)' is banned from channel '\(channelId)'; unban them first")
        }
        let newIds = Set(userIds).filter { !channel.isMember($0) }.sorted()
        try requireCapacity(channel, adding: newIds.count)
        _ = consume channel
        for userId in newIds { addMember(userId, to: channelId, now: now) }
    }

    /// Removes users from a channel. Users who are not members are skipped.
    ///
    /// - Throws: `invalidArgument(field: "userIds")`; `notFound`; `notAllowed`; `forbidden`.
    mutating func removeMembers(_ userIds: [String], from channelId: String, by caller: Caller, now: Date)
        throws(ChatError)
    {
        try InputCheck.ids(userIds, field: "userIds")
        try requireKnownUsers(userIds, field: "userIds")
        let leaving = try authorizedRecord(channelId, .removeMember, by: caller, now: now).members(among: userIds)
        for userId in leaving {
            removeMember(userId, from: channelId, now: now)
            emitMembershipChange(
                .memberRemoved(channelId: channelId, userId: userId), channelId: channelId, userId: userId)
        }
    }

    /// Adds (`granted == true`) or removes a role for members of a channel.
    ///
    /// - Throws: `invalidArgument` (`role`, or `userIds` naming unknown users or non-members);
    ///   `notFound`; `notAllowed`; `forbidden`.
    mutating func setRole(
        _ role: String, granted: Bool, for userIds: [String], in channelId: String, by caller: Caller, now: Date
    ) throws(ChatError) {
        try InputCheck.role(role)
        try membersToModerate(userIds, in: channelId, action: .manageRoles, by: caller, now: now)
        for userId in Set(userIds).sorted() {
            var roles = Set(channels[channelId]!.members[userId]!.roles)
            let changed = granted ? roles.insert(role).inserted : roles.remove(role) != nil
            guard changed else { continue }
            channels[channelId]!.members[userId]!.roles = roles.sorted()
            emit(.memberRolesChanged(channelId: channelId, userId: userId), to: .channelMembers(channelId))
        }
    }

    /// Validates a moderation call on members: the ids are well formed, known and members, and
    /// the caller may perform `action`. Returns the channel.
    @discardableResult
    func membersToModerate(
        _ userIds: [String], in channelId: String, action: ServerAction, by caller: Caller, now: Date
    ) throws(ChatError) -> ChannelRecord {
        try InputCheck.ids(userIds, field: "userIds")
        try requireKnownUsers(userIds, field: "userIds")
        let channel = try authorizedRecord(channelId, action, by: caller, now: now)
        if let outsider = userIds.first(where: { !channel.isMember($0) }) {
            throw .invalidArgument(field: "userIds", reason: "'\(outsider)' is not a member of channel '\(channelId)'")
        }
        return channel
    }
}
