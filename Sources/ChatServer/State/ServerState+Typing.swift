import ChatAPI
import Foundation

extension ServerState {
    /// Shows the user as typing in the channel until `now + typingExpiry` (renewed by every
    /// call). Members are told when typing starts, not on renewals.
    ///
    /// - Throws: `notFound`; `notAllowed`; `forbidden` (not a member).
    mutating func startTyping(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        _ = try authorizedRecord(channelId, .read, by: .user(userId), now: now)
        let wasTyping = channels[channelId]!.typing[userId].map { $0 > now } ?? false
        channels[channelId]!.typing[userId] = now + configuration.typingExpiry
        typingChannels.insert(channelId)
        if !wasTyping {
            emit(.typingStarted(channelId: channelId, userId: userId), to: .channelMembers(channelId))
        }
    }

    /// Ends the user's typing indicator. Idempotent.
    ///
    /// - Throws: `notFound` (channel unknown or invisible).
    mutating func stopTyping(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        _ = try authorizedRecord(channelId, .view, by: .user(userId), now: now)
        if channels[channelId]!.typing.removeValue(forKey: userId) != nil {
            emit(.typingStopped(channelId: channelId, userId: userId), to: .channelMembers(channelId))
        }
    }

    /// Ends every typing indicator that has expired at `now`, telling members.
    ///
    /// - Complexity: O(channels with someone typing).
    mutating func expireTyping(now: Date) {
        for channelId in typingChannels.sorted() {
            let expired = channels[channelId]!.typing.filter { $0.value <= now }.keys.sorted()
            for userId in expired {
                channels[channelId]!.typing[userId] = nil
                emit(.typingStopped(channelId: channelId, userId: userId), to: .channelMembers(channelId))
            }
            if channels[channelId]!.typing.isEmpty { typingChannels.remove(channelId) }
        }
    }

    /// The users typing in a channel at `now`, sorted.
    func typingUsers(in channelId: String, now: Date) -> [String] {
        (channels[channelId]?.typing ?? [:]).filter { $0.value > now }.keys.sorted()
    }
}
