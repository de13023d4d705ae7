import ChatAPI
import Foundation

extension ServerState {
    /// The channel as `viewer` sees it: the stored fields plus the viewer's membership, read
    /// marker and mention flag. The console (`viewer == nil`) sees no membership.
    ///
    /// The stored mute and rate-limit flags are current because expiries run before every
    /// operation (``expireTimers(now:)``).
    ///
    /// - Complexity: O(1) (the stored value is shared copy-on-write).
    func render(_ channel: ChannelRecord, for viewer: String?) -> Channel {
        var value = channel.info
        guard let viewer else { return value }
        if let member = channel.members[viewer] {
            value.currentUserMembership = .member
            value.readSequence = member.readSequence
            value.hasMention = member.mentionSequence > member.readSequence
        } else if channel.isBanned(viewer) {
            value.currentUserMembership = .banned
        }
        return value
    }

    /// The member (or banned user) record of `userId` in `channel` as the API shows it.
    func renderMember(_ userId: String, in channel: ChannelRecord, now: Date) -> ChannelMember? {
        var rendered: ChannelMember
        if let member = channel.members[userId] {
            rendered = ChannelMember(
                channelId: channel.id, userId: userId, roles: member.roles, membership: .member,
                mutedUntil: channel.isUserMuted(userId, at: now) ? channel.mutes[userId] : nil,
                isMuted: channel.isUserMuted(userId, at: now), joinedAt: member.joinedAt,
                readSequence: member.readSequence)
        } else if let ban = channel.bans[userId] {
            rendered = ChannelMember(
                channelId: channel.id, userId: userId, membership: .banned, joinedAt: ban.bannedAt)
        } else {
            return nil
        }
        rendered.version = channel.info.version
        rendered.user = users[userId]
        return rendered
    }

    /// ``renderMember(_:in:now:)``, or for a user who is neither member nor banned a record with
    /// membership `.none` (what a client drops from its member lists), versioned like the rest.
    func renderMemberOrFormer(_ userId: String, in channel: ChannelRecord, now: Date) -> ChannelMember {
        if let member = renderMember(userId, in: channel, now: now) { return member }
        var former = ChannelMember(channelId: channel.id, userId: userId, membership: .none)
        former.version = channel.info.version
        return former
    }

    /// The viewer's unread count in a channel: messages after their read marker (0 for
    /// non-members and unknown channels).
    func unreadCount(userId: String, channelId: String) -> Int {
        guard let channel = channels[channelId], !channel.info.isDeleted,
            let member = channel.members[userId]
        else { return 0 }
        return max(0, channel.info.lastSequence - member.readSequence)
    }

    /// The sum of the user's unread counts over the channels they are a member of.
    ///
    /// - Complexity: O(number of the user's channels).
    func totalUnreadCount(userId: String) -> Int {
        memberships[userId, default: []].reduce(0) { $0 + unreadCount(userId: userId, channelId: $1) }
    }
}
