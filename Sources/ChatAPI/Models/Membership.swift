/// A user's relation to a channel.
public enum Membership: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not a member (never joined, left, or was removed).
    case none
    /// A member: can read and, depending on the channel type, send.
    case member
    /// Banned: not a member, and cannot rejoin until unbanned.
    case banned
}
