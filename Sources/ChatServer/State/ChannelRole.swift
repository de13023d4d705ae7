/// Role names with a meaning to the server. Other roles may be assigned and queried freely.
public enum ChannelRole {
    /// Moderators may edit the channel and use every moderation tool its type supports.
    public static let moderator = "moderator"
}
