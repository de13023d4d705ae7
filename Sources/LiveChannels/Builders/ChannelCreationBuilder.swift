import ChatAPI

/// The fields and setters shared by the channel creation builders. Use one of its final
/// subclasses — `CommunityChannelBuilder`, `LiveChannelBuilder`, `ConversationChannelBuilder` —
/// which fix the channel type; this class cannot be created or subclassed outside the module.
///
/// Setters never fail; they record the value, replacing an earlier one. Every check happens in
/// `makeDraft()`, which the repository calls when the builder is used.
public class ChannelCreationBuilder: ChannelBuilder {
    /// The type of channel the builder creates, fixed by the subclass.
    public let channelType: ChannelType
    /// The requested channel id; `nil` (the default) lets the server generate a unique one.
    public private(set) var channelId: String?
    /// The users to add as members besides the creator, as set.
    public private(set) var userIds: [String] = []
    /// The display name; `nil` when unset.
    public private(set) var displayName: String?
    /// The avatar file id; `nil` when unset.
    public private(set) var avatarFileId: String?
    /// The tags, as set.
    public private(set) var tags: [String] = []
    /// The metadata; empty when unset.
    public private(set) var metadata: [String: JSON] = [:]

    init(channelType: ChannelType) {
        self.channelType = channelType
    }

    /// Requests the id `id` for the new channel. Optional: without it the server generates a
    /// unique id. Creating a channel with an id in use fails with `ChatError.alreadyExists`.
    public func setId(_ id: String) {
        channelId = id
    }

    /// Sets the users to add as members besides the creator. Repeated ids count once. Required
    /// (at least one) for a conversation, which is unique by its member set.
    public func setUserIds(_ userIds: [String]) {
        self.userIds = userIds
    }

    /// Sets the display name (at most 256 characters, no control characters).
    public func setDisplayName(_ name: String) {
        displayName = name
    }

    /// Sets the tags used to find the channel in queries (at most 20, each 1 to 64 characters).
    public func setTags(_ tags: [String]) {
        self.tags = tags
    }

    /// Sets the metadata, a JSON object of at most 100 KB encoded.
    public func setMetadata(_ metadata: [String: JSON]) {
        self.metadata = metadata
    }

    /// Sets the avatar by the id of an uploaded file.
    public func setAvatar(fileId: String) {
        avatarFileId = fileId
    }

    /// The draft of a `channelType` channel with the fields set so far, user ids de-duplicated
    /// in first-occurrence order.
    ///
    /// Throws `ChatError.invalidArgument(field:reason:)` with `field` one of:
    /// - `"channelId"`: breaks `IdentifierRules`: empty, white space at either end (or only
    ///   white space), longer than 128 characters, with control, bidi or zero-width characters,
    ///   or not in Unicode NFC;
    /// - `"userIds"`: none for a conversation, more than 1,000, or an entry that breaks the id
    ///   rules above (an empty string, for one);
    /// - `"displayName"`: longer than 256 characters or with control characters;
    /// - `"avatarFileId"`: breaks the id rules;
    /// - `"tags"`: more than 20, or a tag that is empty, only white space, longer than 64
    ///   characters or with control characters;
    /// - `"metadata"`: a non-finite number, or nested deeper than `JSON.maximumDepth` (32).
    ///
    /// Throws `ChatError.limitExceeded` when the metadata is over 100 KB (102,400 bytes) encoded
    /// (`JSON.object(metadata).encodedSize`) — the error the server reports for the same draft.
    ///
    /// - Complexity: O(size of the fields).
    public func makeDraft() throws(ChatError) -> ChannelDraft {
        var seen = Set<String>()
        let draft = ChannelDraft(
            type: channelType, channelId: channelId,
            userIds: userIds.filter { seen.insert($0).inserted },
            displayName: displayName, avatarFileId: avatarFileId, tags: tags, metadata: metadata)
        try ChannelDraftValidation.validate(draft)
        return draft
    }
}
