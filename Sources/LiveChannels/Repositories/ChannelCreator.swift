import ChatAPI
import LiveCore

/// What `ChannelRepository.createChannel()` returns: pick the channel type.
public struct ChannelCreator: Sendable {
    let client: ChatClient

    /// Creates a community channel; the live object reports `alreadyExists` for an id in use.
    public func community(with builder: CommunityChannelBuilder) -> LiveObject<Channel> {
        create(builder)
    }

    /// Creates a live channel.
    public func live(with builder: LiveChannelBuilder) -> LiveObject<Channel> {
        create(builder)
    }

    /// Creates a conversation, or returns the existing one with the same members.
    public func conversation(with builder: ConversationChannelBuilder) -> LiveObject<Channel> {
        create(builder)
    }

    private func create(_ builder: some ChannelBuilder) -> LiveObject<Channel> {
        do {
            return client.liveChannel(creating: .createChannel(try builder.makeDraft()))
        } catch {
            return client.failedChannel(error)
        }
    }
}
