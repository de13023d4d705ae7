import ChatAPI

/// Describes a community channel to create: public, discoverable by every user, with all
/// moderation tools. The creator becomes a member and a moderator.
///
/// ```swift
/// let builder = CommunityChannelBuilder()
/// builder.setId("my-id")                 // optional; generated when absent
/// builder.setDisplayName("Ops")
/// builder.setTags(["ch-comm"])
/// let draft = try builder.makeDraft()    // what ChannelRepository sends
/// ```
///
/// See `ChannelCreationBuilder` for the setters and the checks of `makeDraft()`.
public final class CommunityChannelBuilder: ChannelCreationBuilder {
    /// An empty builder for a community channel.
    public init() {
        super.init(channelType: .community)
    }
}
