import ChatAPI
import Foundation

extension ServerState {
    /// Flags (or, with `isFlagged == false`, unflags) a message for the channel's moderators.
    /// Idempotent; moderators read the result with ``flagReports(in:by:now:)``.
    ///
    /// The seed's rules: flagging exists in community and live channels only (broadcast
    /// channels are read-only, conversations have no moderation), for their members.
    ///
    /// - Throws: `invalidArgument` (ids); `notFound` (channel, or a message not in it);
    ///   `notAllowed` (another channel type, or deleted); `forbidden` (not a member, banned).
    mutating func setMessageFlag(
        _ messageId: String, in channelId: String, isFlagged: Bool, by userId: String, now: Date
    ) throws(ChatError) {
        try InputCheck.id(channelId, field: "channelId")
        try InputCheck.id(messageId, field: "messageId")
        _ = try flaggableRecord(channelId, by: userId, now: now)
        guard let location = messageLocations[messageId], location.channelId == channelId else {
            throw .notFound("message '\(messageId)' in channel '\(channelId)'")
        }
        if isFlagged {
            channels[channelId]!.messageFlags[location.sequence, default: []].insert(userId)
        } else {
            channels[channelId]!.messageFlags[location.sequence]?.remove(userId)
            if channels[channelId]!.messageFlags[location.sequence]?.isEmpty == true {
                channels[channelId]!.messageFlags[location.sequence] = nil
            }
        }
    }

    /// Flags (or unflags) a member — or banned user — of the channel for its moderators.
    /// Idempotent; rules as ``setMessageFlag(_:in:isFlagged:by:now:)``.
    ///
    /// - Throws: as for messages; `notFound` for a user who is neither member nor banned.
    mutating func setUserFlag(
        _ flaggedId: String, in channelId: String, isFlagged: Bool, by userId: String, now: Date
    ) throws(ChatError) {
        try InputCheck.id(channelId, field: "channelId")
        try InputCheck.id(flaggedId, field: "userId")
        let channel = try flaggableRecord(channelId, by: userId, now: now)
        guard channel.isMember(flaggedId) || channel.isBanned(flaggedId) else {
            throw .notFound("user '\(flaggedId)' in channel '\(channelId)'")
        }
        if isFlagged {
            channels[channelId]!.userFlags[flaggedId, default: []].insert(userId)
        } else {
            channels[channelId]!.userFlags[flaggedId]?.remove(userId)
            if channels[channelId]!.userFlags[flaggedId]?.isEmpty == true {
                channels[channelId]!.userFlags[flaggedId] = nil
            }
        }
    }

    /// Clears every flag of `subject` in the channel (the console resolving a report: dismissed,
    /// or dealt with by a deletion or a ban).
    ///
    /// - Throws: `invalidArgument` (ids); `notFound` (the channel, or no flag of `subject` in it).
    mutating func dismissFlags(of subject: FlagReport.Subject, in channelId: String) throws(ChatError) {
        try InputCheck.id(channelId, field: "channelId")
        let channel = try record(channelId)
        switch subject {
        case .message(let messageId):
            try InputCheck.id(messageId, field: "messageId")
            guard let location = messageLocations[messageId], location.channelId == channelId,
                channel.messageFlags[location.sequence] != nil
            else { throw .notFound("flags of message '\(messageId)' in channel '\(channelId)'") }
            channels[channelId]!.messageFlags[location.sequence] = nil
        case .user(let userId):
            try InputCheck.id(userId, field: "userId")
            guard channel.userFlags[userId] != nil else {
                throw .notFound("flags of user '\(userId)' in channel '\(channelId)'")
            }
            channels[channelId]!.userFlags[userId] = nil
        }
    }

    /// What was flagged in a channel, for its moderators and admins: messages in sequence order,
    /// then users by id.
    ///
    /// - Throws: `notFound`; `notAllowed` (conversation); `forbidden` (not a moderator or admin).
    func flagReports(in channelId: String, by caller: Caller, now: Date) throws(ChatError) -> [FlagReport] {
        try InputCheck.id(channelId, field: "channelId")
        let channel = try authorizedRecord(channelId, .reviewFlags, by: caller, now: now)
        let messages = channel.messageFlags.sorted { $0.key < $1.key }.compactMap { sequence, users in
            channel.messages[sequence: sequence].map {
                FlagReport(subject: .message(messageId: $0.messageId), flaggedBy: users.sorted())
            }
        }
        let users = channel.userFlags.sorted { $0.key < $1.key }.map { userId, users in
            FlagReport(subject: .user(userId: userId), flaggedBy: users.sorted())
        }
        return messages + users
    }

    private func flaggableRecord(_ channelId: String, by userId: String, now: Date) throws(ChatError) -> ChannelRecord {
        let channel = try authorizedRecord(channelId, .flag, by: .user(userId), now: now)
        guard channel.type == .community || channel.type == .live else {
            throw .notAllowed(
                "only community and live channels have flagging; channel '\(channelId)' is \(channel.type.rawValue)")
        }
        return channel
    }
}
