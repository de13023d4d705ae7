import ChatAPI

/// Describes a conversation to create: a channel visible only to its members, without
/// moderation, that cannot be joined or left. A conversation is unique by its member set
/// (the creator plus `userIds`): creating one that exists returns the existing channel.
///
/// `setUserIds(_:)` is required: `makeDraft()` throws
/// `ChatError.invalidArgument(field: "userIds", …)` without at least one user id. See
/// `ChannelCreationBuilder` for the other setters and checks.
public final class ConversationChannelBuilder: ChannelCreationBuilder {
    /// An empty builder for a conversation.
    public init() {
        super.init(channelType: .conversation)
    }
}
