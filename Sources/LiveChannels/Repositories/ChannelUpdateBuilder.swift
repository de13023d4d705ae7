import ChatAPI
import LiveCore

/// Collects changes to one channel, Amity style, and applies them with ``update()`` (live) or
/// `ChannelRepository.updateChannel(with:)` (async). Metadata is replaced as a whole, last
/// writer wins.
public final class ChannelUpdateBuilder {
    /// The channel to update.
    public let channelId: String
    let client: ChatClient
    private var changes: ChannelChanges

    /// A builder of changes to the channel `channelId`, sent through `client` by `update()` or `ChannelRepository.updateChannel(with:)`.
    public init(channelId: String, client: ChatClient) {
        self.channelId = channelId
        self.client = client
        changes = ChannelChanges(channelId: channelId)
    }

    /// Sets the channel's display name; `nil` clears it.
    public func setDisplayName(_ displayName: String) { changes.displayName = displayName }
    /// Replaces the channel's custom metadata.
    public func setMetadata(_ metadata: [String: JSON]) { changes.metadata = metadata }
    /// Replaces the channel's tags.
    public func setTags(_ tags: [String]) { changes.tags = tags }
    /// Sets the file id of the channel's avatar; `nil` clears it.
    public func setAvatar(fileId: String) { changes.avatarFileId = fileId }

    /// The changes to send.
    /// - Throws: `ChatError.invalidArgument` when nothing was set, or for metadata nested deeper
    ///   than `JSON.maximumDepth` or holding a non-finite number; `ChatError.limitExceeded` for
    ///   metadata over 100 KB — the errors the server reports for the same changes (and for a
    ///   channel created with the same metadata).
    public func makeChanges() throws -> ChannelChanges {
        guard !changes.isEmpty else {
            throw ChatError.invalidArgument(field: "changes", reason: "set at least one field to update")
        }
        if let metadata = changes.metadata { try JSON.validateMetadata(metadata) }
        return changes
    }

    /// Sends the update now and returns the channel as a live object; a failure is reported as
    /// its `error` while it keeps showing the channel.
    public func update() -> LiveObject<Channel> {
        do {
            return client.liveChannel(channelId, sending: .updateChannel(try makeChanges()))
        } catch {
            return client.failedChannel(error)
        }
    }
}
