/// The order of a member list.
public enum MemberSort: String, Sendable, Hashable, Codable, CaseIterable {
    /// Earliest `joinedAt` first.
    case firstCreated
    /// Latest `joinedAt` first.
    case lastCreated
}
