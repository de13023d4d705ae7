/// One change of server state, as the state records it. The event hub turns each into one event
/// per recipient connection, rendering channel values from that recipient's point of view.
enum StateChange: Sendable, Hashable {
    case channelCreated(channelId: String)
    case channelUpdated(channelId: String)
    case channelDeleted(channelId: String)
    case memberAdded(channelId: String, userId: String)
    case memberRemoved(channelId: String, userId: String)
    case memberBanned(channelId: String, userId: String)
    case memberUnbanned(channelId: String, userId: String)
    case memberMuted(channelId: String, userId: String)
    /// Unmuted by a moderator, or the mute period ended.
    case memberUnmuted(channelId: String, userId: String)
    case memberRolesChanged(channelId: String, userId: String)
    case messageNew(channelId: String, sequence: Int)
    case messageUpdated(channelId: String, sequence: Int)
    case messageDeleted(channelId: String, sequence: Int)
    case readMarkerMoved(channelId: String, userId: String)
    case typingStarted(channelId: String, userId: String)
    case typingStopped(channelId: String, userId: String)
    case userUpdated(userId: String)
    /// The user's `isOnline`/`lastActiveAt` changed.
    case presenceChanged(userId: String)
}

/// A change and who must hear about it.
struct Emission: Sendable, Hashable {
    var change: StateChange
    var audience: Audience
}
