import ChatAPI
import Foundation

extension ServerState {
    /// Performs a client request from `device` and returns its response: the one request path
    /// of every connection. Each case states its response and errors in `ChatRequest`.
    ///
    /// - Throws: the `ChatError` of the first rule the request breaks; the state is unchanged.
    mutating func handle(_ request: ChatRequest, from device: DeviceKey, now: Date) throws(ChatError) -> ChatResponse {
        let userId = device.userId
        let caller = Caller.user(userId)
        switch request {
        case .createChannel(let draft):
            let channelId = try createChannel(draft, by: caller, now: now).channelId
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .joinChannel(let channelId):
            try joinChannel(channelId, userId: userId, now: now)
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .leaveChannel(let channelId):
            try leaveChannel(channelId, userId: userId, now: now)
            return .empty
        case .getChannel(let channelId):
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .queryChannels(let query, let cursor):
            return .channels(try queryChannels(query, after: cursor, by: caller, now: now))
        case .updateChannel(let changes):
            return .channel(try updateChannel(changes, by: caller, now: now))
        case .deleteChannel(let channelId):
            try deleteChannel(channelId, by: caller, now: now)
            return .empty
        case .muteChannel(let channelId, let period):
            try muteChannel(channelId, period: period, by: caller, now: now)
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .unmuteChannel(let channelId):
            try muteChannel(channelId, period: nil, by: caller, now: now)
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .setRateLimit(let channelId, let period, let limit, let window):
            try setRateLimit(channelId, period: period, limit: limit, window: window, by: caller, now: now)
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .removeRateLimit(let channelId):
            try setRateLimit(channelId, period: -1, limit: nil, window: 0, by: caller, now: now)
            return .channel(try getChannel(channelId, by: caller, now: now))

        case .addMembers(let channelId, let userIds):
            try addMembers(userIds, to: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .removeMembers(let channelId, let userIds):
            try removeMembers(userIds, from: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .queryMembers(let query, let cursor):
            return .memberPage(try queryMembers(query, after: cursor, by: caller, now: now))
        case .banMembers(let channelId, let userIds):
            try banMembers(userIds, in: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .unbanMembers(let channelId, let userIds):
            try unbanMembers(userIds, in: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .muteMembers(let channelId, let userIds, let period):
            try muteMembers(userIds, period: period, in: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .unmuteMembers(let channelId, let userIds):
            try muteMembers(userIds, period: nil, in: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .addRole(let role, let channelId, let userIds):
            try setRole(role, granted: true, for: userIds, in: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)
        case .removeRole(let role, let channelId, let userIds):
            try setRole(role, granted: false, for: userIds, in: channelId, by: caller, now: now)
            return members(userIds, in: channelId, now: now)

        case .sendMessage(let draft):
            return .message(try sendMessage(draft, by: userId, now: now))
        case .flagMessage(let channelId, let messageId):
            try setMessageFlag(messageId, in: channelId, isFlagged: true, by: userId, now: now)
            return .empty
        case .unflagMessage(let channelId, let messageId):
            try setMessageFlag(messageId, in: channelId, isFlagged: false, by: userId, now: now)
            return .empty
        case .flagUser(let channelId, let flaggedId):
            try setUserFlag(flaggedId, in: channelId, isFlagged: true, by: userId, now: now)
            return .empty
        case .unflagUser(let channelId, let flaggedId):
            try setUserFlag(flaggedId, in: channelId, isFlagged: false, by: userId, now: now)
            return .empty
        case .flagReports(let channelId):
            return .flagReports(try flagReports(in: channelId, by: caller, now: now))
        case .getModerationSettings(let channelId):
            return .moderationSettings(try moderationSettings(of: channelId, by: caller, now: now))
        case .setModerationSettings(let channelId, let settings):
            return .moderationSettings(try setModerationSettings(settings, of: channelId, by: caller, now: now))
        case .editMessage(let messageId, let draft):
            return .message(try editMessage(messageId, draft, by: caller, now: now))
        case .deleteMessage(let channelId, let messageId):
            return .message(try deleteMessage(messageId, in: channelId, by: caller, now: now))
        case .queryMessages(let query):
            // The engine answers a page that needs stored history itself, reading it outside the
            // lock (``ServerEngine/handle(_:from:linkId:)``); this table never reads the store.
            return .messages(try messages(query, by: caller, now: now))

        case .startReading(let channelId):
            try startReading(channelId, userId: userId, deviceId: device.deviceId, now: now)
            return .channel(try getChannel(channelId, by: caller, now: now))
        case .stopReading(let channelId):
            try stopReading(channelId, userId: userId, deviceId: device.deviceId, now: now)
            return .empty
        case .startTyping(let channelId):
            try startTyping(channelId, userId: userId, now: now)
            return .empty
        case .stopTyping(let channelId):
            try stopTyping(channelId, userId: userId, now: now)
            return .empty

        case .getUser(let id):
            try InputCheck.id(id, field: "userId")
            guard let user = users[id] else { throw .notFound("user '\(id)'") }
            watchPresence(of: [id], by: userId)
            return .user(user)
        case .searchUsers(let query, let cursor):
            let page = try searchUsers(query, after: cursor)
            watchPresence(of: page.items.map(\.userId), by: userId)
            return .users(page)
        case .updateCurrentUser(let displayName, let metadata):
            return .user(try updateUser(userId, displayName: displayName, metadata: metadata, now: now))

        case .addPushDevice(let pushDevice):
            try addPushDevice(pushDevice, for: device)
            return .empty
        case .removePushDevice(let id):
            try removePushDevice(id: id, of: device)
            return .empty
        case .setChannelNotifications(let channelId, let enabled):
            try setChannelNotifications(channelId, enabled: enabled, userId: userId, now: now)
            return .empty
        case .getChannelNotifications(let channelId):
            return .bool(try channelNotifications(channelId, userId: userId, now: now))

        case .hasPermission(let permission, let channelId):
            let channel = try authorizedRecord(channelId, .view, by: caller, now: now)
            return .bool(isAllowed(ServerAction(permission), by: caller, in: channel, now: now))
        }
    }

    /// The member records of `userIds` in a channel after a member operation (membership
    /// `.none` for users who are neither members nor banned).
    private func members(_ userIds: [String], in channelId: String, now: Date) -> ChatResponse {
        let channel = channels[channelId]!
        return .members(
            Array(Set(userIds)).sorted().map { renderMemberOrFormer($0, in: channel, now: now) })
    }
}
