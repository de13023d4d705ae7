import ChatAPI

/// Describes a live channel to create: like a community channel, but discoverable only by its
/// members and admins. The creator becomes a member and a moderator.
///
/// See `ChannelCreationBuilder` for the setters and the checks of `makeDraft()`.
public final class LiveChannelBuilder: ChannelCreationBuilder {
    /// An empty builder for a live channel.
    public init() {
        super.init(channelType: .live)
    }
}
