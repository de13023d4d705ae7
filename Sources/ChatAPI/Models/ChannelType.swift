/// The kind of a channel, which decides who can discover it, who can send, and which
/// moderation tools apply.
///
/// | type | discoverable by | who sends | created through the SDK |
/// |---|---|---|---|
/// | `community` | everyone | members | yes |
/// | `live` | members and admins | members | yes |
/// | `broadcast` | everyone | admins only | no (console) |
/// | `conversation` | its members only | members | yes (unique per member set) |
/// | `standard`, `private` | legacy types | members | no (console) |
public enum ChannelType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A legacy type (created from the console): its members send.
    case standard
    /// A legacy type (created from the console): its members send.
    case `private`
    /// A conversation, seen only by its members; unique per member set.
    case conversation
    /// Discoverable by everyone; only admins send (created from the console).
    case broadcast
    /// Discoverable by everyone; its members send.
    case community
    /// Discoverable by its members and admins; its members send.
    case live

    /// Whether a client may create channels of this type (community, live and conversation).
    public var isCreatableByClients: Bool {
        switch self {
        case .community, .live, .conversation: true
        case .standard, .private, .broadcast: false
        }
    }

    /// Whether moderation tools (ban, mute, roles, rate limits) apply to this type.
    public var supportsModeration: Bool { self != .conversation }
}
