import ChatAPI
import Foundation

extension ServerState {
    /// What of a channel differs from one viewer to another: the viewer's membership, read
    /// marker and mention flag. Viewers with equal views see equal channel values, so the server
    /// renders (and the wire encodes) a change once per distinct view, not once per viewer.
    struct ChannelView: Hashable {
        /// The console's view, and that of a viewer neither member nor banned: the stored fields.
        static let outsider = ChannelView(membership: .none, readSequence: 0, hasMention: false)

        var membership: Membership
        var readSequence: Int
        var hasMention: Bool

        init(membership: Membership, readSequence: Int, hasMention: Bool) {
            self.membership = membership
            self.readSequence = readSequence
            self.hasMention = hasMention
        }

        /// A member's view.
        init(_ member: MemberRecord) {
            self.init(
                membership: .member, readSequence: member.readSequence,
                hasMention: member.mentionSequence > member.readSequence)
        }
    }

    /// `viewer`'s view of `channel` (``ChannelView/outsider`` for the console, `viewer == nil`).
    ///
    /// - Complexity: O(1).
    func view(of channel: ChannelRecord, for viewer: String?) -> ChannelView {
        guard let viewer else { return .outsider }
        if let member = channel.members[viewer] { return ChannelView(member) }
        return channel.isBanned(viewer)
            ? ChannelView(membership: .banned, readSequence: 0, hasMention: false) : .outsider
    }

    /// The channel as `viewer` sees it: the stored fields plus the viewer's membership, read
    /// marker and mention flag. The console (`viewer == nil`) sees no membership.
    ///
    /// The stored mute and rate-limit flags are current because expiries run before every
    /// operation (``expireTimers(now:)``).
    ///
    /// - Complexity: O(1) (the stored value is shared copy-on-write).
    func render(_ channel: ChannelRecord, for viewer: String?) -> Channel {
        render(channel, as: view(of: channel, for: viewer))
    }

    /// The channel seen with `view`.
    ///
    /// - Complexity: O(1).
    func render(_ channel: ChannelRecord, as view: ChannelView) -> Channel {
        var value = channel.info
        switch view.membership {
        case .member:
            value.currentUserMembership = .member
            value.readSequence = view.readSequence
            value.hasMention = view.hasMention
        case .banned:
            value.currentUserMembership = .banned
        case .none:
            break
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
