import ChatAPI
import Foundation

extension StateChange {
    /// The channel the change concerns, `nil` for user changes.
    var channelId: String? {
        switch self {
        case .channelCreated(let id), .channelUpdated(let id), .channelDeleted(let id): id
        case .memberAdded(let id, _), .memberRemoved(let id, _), .memberBanned(let id, _),
            .memberUnbanned(let id, _), .memberMuted(let id, _), .memberUnmuted(let id, _),
            .memberRolesChanged(let id, _), .readMarkerMoved(let id, _), .typingStarted(let id, _),
            .typingStopped(let id, _):
            id
        case .messageNew(let id, _), .messageUpdated(let id, _), .messageDeleted(let id, _): id
        case .userUpdated, .presenceChanged: nil
        }
    }
}

extension ServerState {
    /// Looks up the records `emission` needs, once.
    func prepare(_ emission: Emission) -> PreparedEmission {
        let channel = emission.change.channelId.flatMap { channels[$0] }
        var message: Message?
        switch emission.change {
        case .messageNew(_, let sequence), .messageUpdated(_, let sequence), .messageDeleted(_, let sequence):
            message = channel?.messages[sequence: sequence]
        default:
            break
        }
        return PreparedEmission(emission: emission, channel: channel, message: message)
    }

    /// The users who can be in the emission's audience when listing them is cheaper than
    /// checking `connectedUsers` users one by one; `nil` means "check everyone". Each candidate
    /// is still checked (``audienceView(of:for:)``).
    ///
    /// The outsiders of a channel that is not discoverable are listed always (its banned users
    /// and the admins): a message there must not cost a look at every connected user.
    ///
    /// - Complexity: O(size of the list returned).
    func audienceCandidates(of prepared: PreparedEmission, connectedUsers: Int) -> [String]? {
        switch prepared.audience {
        case .users(let userIds):
            return userIds
        case .channelMembers(_, let also):
            guard let channel = prepared.channel, channel.members.count + also.count < connectedUsers else {
                return nil
            }
            return Self.ids(channel.members.keys, also)
        case .channelViewers(_, let also):
            guard let channel = prepared.channel, channel.type == .conversation,
                channel.members.count + also.count < connectedUsers
            else { return nil }
            return Self.ids(channel.members.keys, also)
        case .channelOutsiders(_, let except):
            // Outsiders who see a channel that is not discoverable: its banned users and the
            // admins (``canSee(_:caller:)``) — listed, never looked for among everyone.
            guard let channel = prepared.channel else { return [] }
            switch channel.type {
            case .community, .broadcast, .standard:
                return nil
            case .live, .private:
                let candidates = Array(channel.bans.keys) + Array(adminIds)
                return except.isEmpty ? candidates : candidates.filter { !except.contains($0) }
            case .conversation:
                return []
            }
        case .allUsers:
            return nil
        }
    }

    /// `members` then `also`, in one array allocated once.
    private static func ids(_ members: some Collection<String>, _ also: [String]) -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(members.count + also.count)
        ids.append(contentsOf: members)
        ids.append(contentsOf: also)
        return ids
    }

    /// Whether `userId` is in the emission's audience, judged on the current state.
    ///
    /// - Complexity: O(1) for channel audiences, O(listed users) for `.users`.
    func includes(_ userId: String, in prepared: PreparedEmission) -> Bool {
        switch prepared.audience {
        case .allUsers:
            return true
        case .users(let userIds):
            return userIds.contains(userId)
        case .channelMembers(_, let also):
            return prepared.channel?.isMember(userId) ?? false || also.contains(userId)
        case .channelViewers(_, let also):
            guard let channel = prepared.channel else { return false }
            return canSee(channel, caller: .user(userId)) || also.contains(userId)
        case .channelOutsiders(_, let except):
            guard let channel = prepared.channel else { return false }
            return !channel.isMember(userId) && !except.contains(userId) && canSee(channel, caller: .user(userId))
        }
    }

    /// `nil` when `userId` is not in the emission's audience (``includes(_:in:)``), else their
    /// ``viewKey(of:for:)``: where the audience is a channel's members, one look at the user's
    /// membership answers both.
    ///
    /// - Complexity: as ``includes(_:in:)``.
    func audienceView(of prepared: PreparedEmission, for userId: String) -> ChannelView?? {
        if case .channelMembers(_, let also) = prepared.audience, let channel = prepared.channel {
            if let member = channel.members[userId] { return .some(ChannelView(member)) }
            return also.contains(userId) ? .some(view(of: channel, for: userId)) : nil
        }
        return includes(userId, in: prepared) ? .some(viewKey(of: prepared, for: userId)) : nil
    }

    /// What of the emission's event depends on `viewer`: their view of its channel (`nil` when
    /// the change concerns no channel, and every viewer gets the same event). Viewers with
    /// equal keys get equal events from ``event(for:view:now:)``.
    ///
    /// - Complexity: O(1).
    func viewKey(of prepared: PreparedEmission, for viewer: String) -> ChannelView? {
        prepared.channel.map { view(of: $0, for: viewer) }
    }

    /// The event seen with `view` (``viewKey(of:for:)``): channel values carry the viewer's
    /// membership, read marker and mention flag. `nil` when there is nothing to tell (the
    /// subject is gone).
    ///
    /// `channels` holds the channel values rendered before in the same publishing (the state
    /// does not change meanwhile): the events of one change that carry the same channel for the
    /// same view (a send's `messageNew` and `readMarkerMoved`) share one value.
    ///
    /// - Complexity: O(1).
    func event(
        for prepared: PreparedEmission, view: ChannelView?, now: Date, channels: inout EventHub.ChannelMemo
    ) -> ChatEvent? {
        guard let record = prepared.channel, let view else {
            switch prepared.change {
            case .userUpdated(let userId): return users[userId].map(ChatEvent.userUpdated)
            case .presenceChanged(let userId): return users[userId].map(ChatEvent.presenceChanged)
            default: return nil
            }
        }
        let channel = channels.channel(record.id, as: view) { render(record, as: view) }
        func member(_ userId: String) -> ChannelMember? { renderMember(userId, in: record, now: now) }
        func formerMember(_ userId: String) -> ChannelMember {
            renderMemberOrFormer(userId, in: record, now: now)
        }
        switch prepared.change {
        case .channelCreated: return .channelCreated(channel)
        case .channelUpdated: return .channelUpdated(channel)
        case .channelDeleted: return .channelDeleted(channel)
        case .memberAdded(_, let userId): return member(userId).map { .memberAdded($0, channel: channel) }
        case .memberRemoved(_, let userId): return .memberRemoved(formerMember(userId), channel: channel)
        case .memberBanned(_, let userId): return .memberBanned(formerMember(userId), channel: channel)
        case .memberUnbanned(_, let userId): return .memberUnbanned(formerMember(userId), channel: channel)
        case .memberMuted(_, let userId): return member(userId).map(ChatEvent.memberMuted)
        case .memberUnmuted(_, let userId): return member(userId).map(ChatEvent.memberUnmuted)
        case .memberRolesChanged(_, let userId): return member(userId).map(ChatEvent.memberRoleChanged)
        case .messageNew: return prepared.message.map { .messageNew($0, channel: channel) }
        case .messageUpdated: return prepared.message.map(ChatEvent.messageUpdated)
        case .messageDeleted: return prepared.message.map(ChatEvent.messageDeleted)
        case .readMarkerMoved(_, let userId): return member(userId).map { .readMarkerMoved($0, channel: channel) }
        case .typingStarted(let id, let userId): return .typingStarted(channelId: id, userId: userId)
        case .typingStopped(let id, let userId): return .typingStopped(channelId: id, userId: userId)
        case .userUpdated, .presenceChanged: return nil
        }
    }
}
