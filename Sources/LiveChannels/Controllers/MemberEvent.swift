import ChatAPI

/// Something that happened to a channel's membership, as a ``ChatChannelController`` tells it
/// (Stream's `MemberEvent`).
public enum MemberEvent: Sendable, Hashable {
    /// A user became a member (joined, or was added — also by this controller).
    case added(ChannelMember)
    /// A member's record changed (roles, mute, read marker, profile).
    case updated(ChannelMember)
    /// A member left, was removed or banned.
    case removed(userId: String)
}
