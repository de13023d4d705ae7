/// What members flagged in a channel, as its moderators see it (`ChannelModeration.flagReports()`).
public struct FlagReport: Sendable, Hashable, Codable, Identifiable {
    /// What was flagged.
    public enum Subject: Sendable, Hashable, Codable {
        /// A message, by id.
        case message(messageId: String)
        /// A user (as a member of the channel), by id.
        case user(userId: String)
    }

    /// What was flagged.
    public var subject: Subject
    /// The users who flagged it, sorted.
    public var flaggedBy: [String]

    /// How many users flagged it.
    public var count: Int { flaggedBy.count }

    public var id: Subject { subject }

    /// A report.
    public init(subject: Subject, flaggedBy: [String]) {
        self.subject = subject
        self.flaggedBy = flaggedBy
    }
}
