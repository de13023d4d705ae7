import ChatAPI
import Foundation

extension ServerState {
    /// Sends a message: it gets the channel's next sequence number; the sender's read marker,
    /// and that of every member reading the channel on some device, moves to it; mentioned
    /// members get their mention flag; the sender stops typing.
    ///
    /// - Throws: `invalidArgument` (`text`, `mentionedUserIds`, `metadata`); `limitExceeded`
    ///   (metadata); `notFound`; `notAllowed` (deleted); `forbidden` (not a member, broadcast
    ///   and not an admin, muted member or channel); `rateLimited(retryAfter:)`.
    /// - Complexity: O(mentions + readers).
    mutating func sendMessage(
        _ text: String, mentionedUserIds: [String] = [], metadata: [String: JSON] = [:],
        to channelId: String, by userId: String, now: Date
    ) throws(ChatError) -> Message {
        try InputCheck.messageText(text)
        try InputCheck.ids(mentionedUserIds, field: "mentionedUserIds")
        try InputCheck.metadata(metadata)
        let channel = try authorizedRecord(channelId, .sendMessage, by: .user(userId), now: now)
        let exempt = isAdmin(userId) || channel.isModerator(userId)
        var sends: [Date] = []
        if !exempt, let limit = channel.activeRateLimit(at: now) {
            sends = channel.recentSends[userId, default: []].filter { $0 > now - limit.window }
            if let retryAfter = limit.retryAfter(sends: sends, now: now) {
                throw .rateLimited(retryAfter: retryAfter)
            }
            sends.append(now)
        }

        let sequence = channel.info.lastSequence + 1
        let message = Message(
            messageId: "message-\(nextMessageNumber)", channelId: channelId, sequence: sequence,
            userId: userId, text: text, mentionedUserIds: Array(Set(mentionedUserIds)).sorted(),
            metadata: metadata, createdAt: now)
        nextMessageNumber += 1
        messageLocations[message.messageId] = MessageLocation(channelId: channelId, sequence: sequence)
        channels[channelId]!.messages.append(message)
        if !sends.isEmpty { channels[channelId]!.recentSends[userId] = sends }
        modifyChannel(channelId) { info in
            info.lastSequence = sequence
            info.messageCount += 1
            info.lastMessageAt = now
            info.lastActivity = now
        }
        for mentioned in message.mentionedUserIds where mentioned != userId && channel.isMember(mentioned) {
            channels[channelId]!.members[mentioned]!.mentionSequence = sequence
        }
        emit(.messageNew(channelId: channelId, sequence: sequence), to: .channelViewers(channelId))
        var readers = Set(channel.readers.keys)
        if channel.isMember(userId) { readers.insert(userId) }
        for reader in readers.sorted() { moveReadMarker(of: reader, in: channelId, to: sequence) }
        if channels[channelId]!.typing.removeValue(forKey: userId) != nil {
            emit(.typingStopped(channelId: channelId, userId: userId), to: .channelMembers(channelId))
        }
        return message
    }

    /// Changes a message's text (and metadata when given).
    ///
    /// - Throws: `notFound` (message or channel); `notAllowed` (deleted message or channel);
    ///   `forbidden` (not the sender nor a moderator); `invalidArgument`; `limitExceeded`.
    @discardableResult
    mutating func editMessage(
        _ messageId: String, text: String, metadata: [String: JSON]?, by caller: Caller, now: Date
    ) throws(ChatError) -> Message {
        try InputCheck.messageText(text)
        if let metadata { try InputCheck.metadata(metadata) }
        let location = try authorizeMessageChange(messageId, other: .editAnyMessage, by: caller, now: now)
        channels[location.channelId]!.messages[location.sequence - 1].text = text
        if let metadata { channels[location.channelId]!.messages[location.sequence - 1].metadata = metadata }
        channels[location.channelId]!.messages[location.sequence - 1].editedAt = now
        emit(.messageUpdated(channelId: location.channelId, sequence: location.sequence), to: .channelMembers(location.channelId))
        return channels[location.channelId]!.messages[location.sequence - 1]
    }

    /// Deletes a message: it keeps its sequence number (unread counts do not change) and loses
    /// its text, mentions and metadata.
    ///
    /// - Throws: as ``editMessage(_:text:metadata:by:now:)``.
    @discardableResult
    mutating func deleteMessage(_ messageId: String, by caller: Caller, now: Date) throws(ChatError) -> Message {
        let location = try authorizeMessageChange(messageId, other: .deleteAnyMessage, by: caller, now: now)
        let index = location.sequence - 1
        channels[location.channelId]!.messages[index].isDeleted = true
        channels[location.channelId]!.messages[index].text = ""
        channels[location.channelId]!.messages[index].mentionedUserIds = []
        channels[location.channelId]!.messages[index].metadata = [:]
        channels[location.channelId]!.messages[index].editedAt = now
        emit(.messageDeleted(channelId: location.channelId, sequence: location.sequence), to: .channelMembers(location.channelId))
        return channels[location.channelId]!.messages[index]
    }

    /// The message, if `caller` may read it (members, admins and the console).
    func message(_ messageId: String, by caller: Caller, now: Date) throws(ChatError) -> Message {
        guard let location = messageLocations[messageId] else { throw .notFound("message '\(messageId)'") }
        let channel = try authorizedRecord(location.channelId, .read, by: caller, now: now)
        return channel.messages[location.sequence - 1]
    }

    /// The sender may change their own message while they can read the channel; anyone else
    /// needs `other` (moderators, admins).
    private func authorizeMessageChange(
        _ messageId: String, other: ServerAction, by caller: Caller, now: Date
    ) throws(ChatError) -> MessageLocation {
        try InputCheck.id(messageId, field: "messageId")
        guard let location = messageLocations[messageId] else { throw .notFound("message '\(messageId)'") }
        let channel = try record(location.channelId)
        let message = channel.messages[location.sequence - 1]
        let own = caller.userId == message.userId
        try authorize(own ? .read : other, by: caller, in: channel, now: now)
        if message.isDeleted { throw .notAllowed("message '\(messageId)' was deleted") }
        return location
    }
}
