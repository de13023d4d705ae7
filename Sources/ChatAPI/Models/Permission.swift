/// Something a user may or may not do in a channel, as answered by
/// `ChatRequest.hasPermission(_:channelId:)`.
///
/// The server decides from the channel type, the user's admin flag, membership and channel roles
/// (a `"moderator"` role grants the moderation permissions of community and live channels).
public enum Permission: String, Sendable, Hashable, Codable, CaseIterable {
    /// Change the channel's display name, avatar, tags or metadata.
    case editChannel
    /// Delete the channel.
    case deleteChannel
    /// Send a message.
    case sendMessage
    /// Edit a message sent by another user.
    case editAnyMessage
    /// Delete a message sent by another user.
    case deleteAnyMessage
    /// Add other users as members.
    case addMember
    /// Remove other members.
    case removeMember
    /// Ban and unban members.
    case banMember
    /// Mute and unmute members.
    case muteMember
    /// Add and remove channel roles.
    case manageRoles
    /// Mute and unmute the whole channel.
    case muteChannel
    /// Set and remove the channel's rate limit.
    case manageRateLimit
}
