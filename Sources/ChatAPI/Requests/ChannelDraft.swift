/// What a new channel should be: the contents of a channel builder.
public struct ChannelDraft: Sendable, Hashable, Codable {
    /// The type; clients may create only `community`, `live` and `conversation` channels.
    public var type: ChannelType
    /// The id to use; `nil` lets the server generate a unique one. An id in use fails with
    /// `ChatError.alreadyExists`.
    public var channelId: String?
    /// The users to add as members besides the creator (required, non-empty, for a
    /// conversation, which is unique by its member set).
    public var userIds: [String]
    /// The display name.
    public var displayName: String?
    /// The avatar file id.
    public var avatarFileId: String?
    /// Tags.
    public var tags: [String]
    /// Metadata, at most 100 KB encoded.
    public var metadata: [String: JSON]

    /// A draft; only `type` is required (and `userIds` for a conversation).
    public init(
        type: ChannelType, channelId: String? = nil, userIds: [String] = [],
        displayName: String? = nil, avatarFileId: String? = nil, tags: [String] = [],
        metadata: [String: JSON] = [:]
    ) {
        self.type = type
        self.channelId = channelId
        self.userIds = userIds
        self.displayName = displayName
        self.avatarFileId = avatarFileId
        self.tags = tags
        self.metadata = metadata
    }
}

extension ChannelDraft {
    /// Decodes a draft; every field but `type` may be left out and takes the initializer's
    /// default (what a client in another language writes need not spell out every field).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            type: try container.decode(ChannelType.self, forKey: .type),
            channelId: try container.decodeIfPresent(String.self, forKey: .channelId),
            userIds: try container.decodeIfPresent([String].self, forKey: .userIds) ?? [],
            displayName: try container.decodeIfPresent(String.self, forKey: .displayName),
            avatarFileId: try container.decodeIfPresent(String.self, forKey: .avatarFileId),
            tags: try container.decodeIfPresent([String].self, forKey: .tags) ?? [],
            metadata: try container.decodeIfPresent([String: JSON].self, forKey: .metadata) ?? [:])
    }
}
