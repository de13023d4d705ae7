/// A message to send, or the new content of an edited one.
public struct MessageDraft: Sendable, Hashable, Codable {
    /// The channel.
    public var channelId: String
    /// The text; must not be empty.
    public var text: String
    /// Users the message mentions (they get `hasMention` until they read it).
    public var mentionedUserIds: [String]
    /// Custom fields.
    public var metadata: [String: JSON]

    /// A draft without mentions or metadata unless given.
    public init(
        channelId: String, text: String, mentionedUserIds: [String] = [],
        metadata: [String: JSON] = [:]
    ) {
        self.channelId = channelId
        self.text = text
        self.mentionedUserIds = mentionedUserIds
        self.metadata = metadata
    }
}

extension MessageDraft {
    /// Decodes a draft; `mentionedUserIds` and `metadata` may be left out (empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelId: try container.decode(String.self, forKey: .channelId),
            text: try container.decode(String.self, forKey: .text),
            mentionedUserIds: try container.decodeIfPresent([String].self, forKey: .mentionedUserIds) ?? [],
            metadata: try container.decodeIfPresent([String: JSON].self, forKey: .metadata) ?? [:])
    }
}
