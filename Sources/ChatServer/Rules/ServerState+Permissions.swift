import ChatAPI
import Foundation

extension ServerState {
    /// The one permission function: throws the error the request path reports when `caller`
    /// may not perform `action` in `channel` at `now`; returns when they may.
    ///
    /// Checks, in order:
    /// 1. visibility (`notFound`);
    /// 2. deleted channels allow nothing but viewing and, for their members, reading the
    ///    messages that were sent (`notAllowed`);
    /// 3. channel-type rules: conversations refuse joins, leaves, member changes and moderation
    ///    (`notAllowed`); deleting a channel is console/admin only (`forbidden`);
    /// 4. banned users cannot join, admins included (`forbidden`);
    /// 5. the console and admins may do everything else; other banned users may only view;
    /// 6. roles: moderators of community, live, standard and private channels moderate and edit;
    ///    broadcast channels are moderated by admins only; conversation members edit their
    ///    conversation; members read, send (not in broadcast channels, not while they or the
    ///    channel are muted) and invite others (not in broadcast channels).
    ///
    /// Rate limits are not permissions: they are checked when a message is sent.
    ///
    /// - Complexity: O(1).
    func authorize(
        _ action: ServerAction, by caller: Caller, in channel: ChannelRecord, now: Date
    ) throws(ChatError) {
        let name = "channel '\(channel.id)'"
        guard canSee(channel, caller: caller) else { throw .notFound(name) }
        if action == .view { return }
        if channel.info.isDeleted, action != .read {
            throw .notAllowed("\(name) was deleted")
        }
        if channel.type == .conversation, action.isRefusedInConversations {
            throw .notAllowed(
                "conversation channels have a fixed member set and no moderation; you cannot \(action.verb)")
        }
        guard let userId = caller.userId else { return }
        if action == .join, channel.isBanned(userId) {
            throw .forbidden("you are banned from \(name) and cannot join until unbanned")
        }
        if isAdmin(userId) { return }
        if action == .deleteChannel {
            throw .forbidden("only admins can delete channels")
        }
        if channel.isBanned(userId) {
            throw .forbidden("you are banned from \(name) and cannot \(action.verb) until unbanned")
        }
        if action == .join { return }
        if action == .leave { return }
        guard let member = channel.members[userId] else {
            throw .forbidden("only members of \(name) can \(action.verb); join it first")
        }
        let moderates = member.isModerator && channel.type != .broadcast
        if action.isModeration {
            if moderates { return }
            throw .forbidden("only moderators and admins can \(action.verb) in \(name)")
        }
        switch action {
        case .read:
            return
        case .editChannel:
            if moderates || channel.type == .conversation { return }
            throw .forbidden("only moderators and admins can \(action.verb) in \(name)")
        case .addMember:
            if channel.type != .broadcast || moderates { return }
            throw .forbidden("only admins can add members to broadcast \(name)")
        case .sendMessage:
            if channel.type == .broadcast {
                throw .forbidden("only admins can send messages to broadcast channels")
            }
            if moderates { return }
            if channel.isUserMuted(userId, at: now) {
                throw .forbidden("you are muted in \(name)")
            }
            if channel.isMuted(at: now) {
                throw .forbidden("\(name) is muted; only moderators and admins can send")
            }
        default:
            return
        }
    }

    /// Whether `authorize` would let `caller` perform `action`: the answer of `hasPermission`.
    func isAllowed(_ action: ServerAction, by caller: Caller, in channel: ChannelRecord, now: Date) -> Bool {
        do {
            try authorize(action, by: caller, in: channel, now: now)
            return true
        } catch {
            return false
        }
    }

    /// Looks the channel up and authorizes `action` in it.
    ///
    /// - Throws: `notFound` for a missing channel, else whatever ``authorize(_:by:in:now:)`` throws.
    func authorizedRecord(
        _ channelId: String, _ action: ServerAction, by caller: Caller, now: Date
    ) throws(ChatError) -> ChannelRecord {
        let channel = try record(channelId)
        try authorize(action, by: caller, in: channel, now: now)
        return channel
    }
}
