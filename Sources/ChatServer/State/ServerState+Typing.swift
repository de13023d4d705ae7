import ChatAPI
import Foundation

extension ServerState {
    /// Shows the user as typing in the channel until `now + typingExpiry` (renewed by every
    /// call). Members are told when typing starts, not on renewals.
    ///
    /// - Throws: `notFound`; `notAllowed`; `forbidden` (not a member).
    mutating func startTyping(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        let channel = try authorizedRecord(channelId, .read, by: .user(userId), now: now)
        if channel.info.isDeleted { throw .notAllowed("channel '\(channelId)' was deleted") }
        let wasTyping = channels[channelId]!.typing[userId].map { $0 > now } ?? false
        channels[channelId]!.typing[userId] = now + configuration.typingExpiry
        timedChannels.insert(channelId)
        noteDeadline(now + configuration.typingExpiry)
        if !wasTyping {
            emit(.typingStarted(channelId: channelId, userId: userId), to: .channelMembers(channelId))
        }
    }

    /// Ends the user's typing indicator. Idempotent.
    ///
    /// - Throws: `notFound` (channel unknown or invisible).
    mutating func stopTyping(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        _ = try authorizedRecord(channelId, .view, by: .user(userId), now: now)
        endTyping(userId: userId, in: channelId)
    }

    /// Ends the user's typing indicator in a channel, if any, telling members (and `userId`).
    mutating func endTyping(userId: String, in channelId: String) {
        // Looked up first: a send ends its sender's typing, and most senders were not typing (a
        // write access to the record costs its accessors' frames and marks it changed).
        guard channels[channelId]?.typing[userId] != nil else { return }
        if channels[channelId]?.typing.removeValue(forKey: userId) != nil {
            emit(.typingStopped(channelId: channelId, userId: userId), to: .channelMembers(channelId, also: [userId]))
            trackDeadlines(of: channelId)
        }
    }

    /// Ends the user's typing everywhere (their last device disconnected).
    ///
    /// - Complexity: O(channels with deadlines).
    mutating func endAllTyping(userId: String) {
        for channelId in timedChannels.sorted() where channels[channelId]?.typing[userId] != nil {
            endTyping(userId: userId, in: channelId)
        }
    }

    /// The users typing in a channel at `now`, sorted.
    func typingUsers(in channelId: String, now: Date) -> [String] {
        (channels[channelId]?.typing ?? [:]).filter { $0.value > now }.keys.sorted()
    }
}
