/// Which members of a channel a member list shows.
public enum MemberFilter: String, Sendable, Hashable, Codable, CaseIterable {
    /// Current members (muted ones included, banned users excluded).
    case all
    /// Current members who are muted.
    case mute
    /// Banned users.
    case ban
}
