/// Changes to a channel's own fields, the contents of a `ChannelUpdateBuilder`. A `nil` field is
/// left as it is; a set one replaces the stored value (metadata as a whole: last writer wins).
public struct ChannelChanges: Sendable, Hashable, Codable {
    /// The channel to change.
    public var channelId: String
    /// The new display name.
    public var displayName: String?
    /// The new avatar file id.
    public var avatarFileId: String?
    /// The new tags.
    public var tags: [String]?
    /// The new metadata, at most 100 KB encoded.
    public var metadata: [String: JSON]?

    /// Changes to `channelId`; every field left `nil` stays as it is.
    public init(
        channelId: String, displayName: String? = nil, avatarFileId: String? = nil,
        tags: [String]? = nil, metadata: [String: JSON]? = nil
    ) {
        self.channelId = channelId
        self.displayName = displayName
        self.avatarFileId = avatarFileId
        self.tags = tags
        self.metadata = metadata
    }

    /// Whether nothing would change.
    public var isEmpty: Bool {
        displayName == nil && avatarFileId == nil && tags == nil && metadata == nil
    }
}
