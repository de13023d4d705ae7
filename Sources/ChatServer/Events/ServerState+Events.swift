import ChatAPI
import Foundation

extension ServerState {
    /// Whether `userId` is in `audience`, judged on the current state.
    ///
    /// - Complexity: O(1) for channel audiences, O(listed users) for `.users`.
    func includes(_ userId: String, in audience: Audience) -> Bool {
        switch audience {
        case .allUsers:
            return true
        case .users(let userIds):
            return userIds.contains(userId)
        case .channelMembers(let channelId, let also):
            return channels[channelId]?.isMember(userId) ?? false || also.contains(userId)
        case .channelViewers(let channelId, let also):
            guard let channel = channels[channelId] else { return false }
            return canSee(channel, caller: .user(userId)) || also.contains(userId)
        case .channelOutsiders(let channelId, let except):
            guard let channel = channels[channelId] else { return false }
            return !channel.isMember(userId) && !except.contains(userId) && canSee(channel, caller: .user(userId))
        }
    }

    /// The event `viewer` receives for `change`: channel values carry the viewer's membership,
    /// read marker and mention flag. `nil` when there is nothing to tell (the subject is gone).
    ///
    /// - Complexity: O(1).
    func event(for change: StateChange, viewer: String, now: Date) -> ChatEvent? {
        func channel(_ id: String) -> Channel? {
            channels[id].map { render($0, for: viewer, now: now) }
        }
        func member(_ userId: String, _ channelId: String) -> ChannelMember? {
            channels[channelId].flatMap { renderMember(userId, in: $0, now: now) }
        }
        func formerMember(_ userId: String, _ channelId: String) -> ChannelMember {
            member(userId, channelId) ?? ChannelMember(channelId: channelId, userId: userId, membership: .none)
        }
        func message(_ channelId: String, _ sequence: Int) -> Message? {
            channels[channelId]?.messages[sequence - 1]
        }
        switch change {
        case .channelCreated(let id):
            return channel(id).map(ChatEvent.channelCreated)
        case .channelUpdated(let id):
            return channel(id).map(ChatEvent.channelUpdated)
        case .channelDeleted(let id):
            return channel(id).map(ChatEvent.channelDeleted)
        case .memberAdded(let id, let userId):
            guard let value = member(userId, id), let channel = channel(id) else { return nil }
            return .memberAdded(value, channel: channel)
        case .memberRemoved(let id, let userId):
            return channel(id).map { .memberRemoved(formerMember(userId, id), channel: $0) }
        case .memberBanned(let id, let userId):
            return channel(id).map { .memberBanned(formerMember(userId, id), channel: $0) }
        case .memberUnbanned(let id, let userId):
            return channel(id).map { .memberUnbanned(formerMember(userId, id), channel: $0) }
        case .memberMuted(let id, let userId):
            return member(userId, id).map(ChatEvent.memberMuted)
        case .memberUnmuted(let id, let userId):
            return member(userId, id).map(ChatEvent.memberUnmuted)
        case .memberRolesChanged(let id, let userId):
            return member(userId, id).map(ChatEvent.memberRoleChanged)
        case .messageNew(let id, let sequence):
            guard let message = message(id, sequence), let channel = channel(id) else { return nil }
            return .messageNew(message, channel: channel)
        case .messageUpdated(let id, let sequence):
            return message(id, sequence).map(ChatEvent.messageUpdated)
        case .messageDeleted(let id, let sequence):
            return message(id, sequence).map(ChatEvent.messageDeleted)
        case .readMarkerMoved(let id, let userId):
            guard let value = member(userId, id), let channel = channel(id) else { return nil }
            return .readMarkerMoved(value, channel: channel)
        case .typingStarted(let id, let userId):
            return .typingStarted(channelId: id, userId: userId)
        case .typingStopped(let id, let userId):
            return .typingStopped(channelId: id, userId: userId)
        case .userUpdated(let userId):
            return users[userId].map(ChatEvent.userUpdated)
        }
    }
}
