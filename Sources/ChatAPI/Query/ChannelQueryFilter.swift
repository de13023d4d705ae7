/// The membership condition of Amity-style channel query builders.
public enum ChannelQueryFilter: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every channel the user can see.
    case all
    /// Channels the user is a member of.
    case userIsMember
    /// Channels the user can see but is not a member of.
    case userIsNotMember

    /// The equivalent `Filter` on the viewer's `joined` field.
    public var filter: Filter {
        switch self {
        case .all: .all
        case .userIsMember: .equal(.joined, to: true)
        case .userIsNotMember: .equal(.joined, to: false)
        }
    }
}
