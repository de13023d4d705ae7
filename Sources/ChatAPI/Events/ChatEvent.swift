/// A state change pushed by the server to every connection whose user may see it.
///
/// Events carry whole model values, as the receiving user sees them (a `Channel`'s viewer
/// fields are the receiver's), so a client applies them to its cache without refetching.
/// Channel values in member and message events reflect the change (member count, last
/// sequence, the receiver's membership and unread count).
public indirect enum ChatEvent: Sendable, Hashable, Codable {
    /// A channel became visible to the receiver by being created.
    case channelCreated(Channel)
    /// A channel's own fields changed (name, metadata, tags, mute, rate limit, …).
    case channelUpdated(Channel)
    /// A channel was deleted; the value has `isDeleted == true`.
    case channelDeleted(Channel)
    /// A user became a member.
    case memberAdded(ChannelMember, channel: Channel)
    /// A member left or was removed (membership `.none`).
    case memberRemoved(ChannelMember, channel: Channel)
    /// A member was banned (membership `.banned`).
    case memberBanned(ChannelMember, channel: Channel)
    /// A ban was lifted (membership `.none`).
    case memberUnbanned(ChannelMember, channel: Channel)
    /// A member was muted.
    case memberMuted(ChannelMember)
    /// A member was unmuted (by a moderator or because the mute period ended).
    case memberUnmuted(ChannelMember)
    /// A member's roles changed.
    case memberRoleChanged(ChannelMember)
    /// A message was sent.
    case messageNew(Message, channel: Channel)
    /// A message was edited.
    case messageUpdated(Message)
    /// A message was deleted (`isDeleted`, empty text).
    case messageDeleted(Message)
    /// A member's read marker moved; the member value carries the new `readSequence`.
    case readMarkerMoved(ChannelMember, channel: Channel)
    /// A user started typing.
    case typingStarted(channelId: String, userId: String)
    /// A user stopped typing (explicitly, by sending, or by timing out).
    case typingStopped(channelId: String, userId: String)
    /// A user's profile changed.
    case userUpdated(User)
    /// A user came online (their first device connected) or went offline (their last device
    /// disconnected): the user with the new `isOnline` and `lastActiveAt`. Sent to the users
    /// who share a channel with them and to those who looked them up (`getUser`,
    /// `searchUsers`) while connected; never to the user's own devices.
    case presenceChanged(User)

    /// The channel the event belongs to; `nil` for user events.
    public var channelId: String? {
        switch self {
        case .channelCreated(let channel), .channelUpdated(let channel),
            .channelDeleted(let channel):
            channel.channelId
        case .memberAdded(let member, _), .memberRemoved(let member, _),
            .memberBanned(let member, _), .memberUnbanned(let member, _),
            .memberMuted(let member), .memberUnmuted(let member), .memberRoleChanged(let member),
            .readMarkerMoved(let member, _):
            member.channelId
        case .messageNew(let message, _), .messageUpdated(let message),
            .messageDeleted(let message):
            message.channelId
        case .typingStarted(let channelId, _), .typingStopped(let channelId, _):
            channelId
        case .userUpdated, .presenceChanged:
            nil
        }
    }
}
