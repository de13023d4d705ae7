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
    /// The id the sender chose for the message (``MessageIdRules``), or `nil` for one the server
    /// makes. Only `sendMessage` reads it: a second send with the same id from the same user
    /// into the same channel answers the stored message and changes nothing, so a send repeated
    /// after a lost answer can never double the message. On the wire `"messageId"`, left out
    /// when `nil`.
    public var messageId: String?

    /// A draft without mentions or metadata unless given.
    public init(
        channelId: String, text: String, mentionedUserIds: [String] = [],
        metadata: [String: JSON] = [:], messageId: String? = nil
    ) {
        self.channelId = channelId
        self.text = text
        self.mentionedUserIds = mentionedUserIds
        self.metadata = metadata
        self.messageId = messageId
    }
}

extension MessageDraft {
    /// Decodes a draft; `mentionedUserIds` and `metadata` may be left out (empty), and
    /// `messageId` (`nil`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelId: try container.decode(String.self, forKey: .channelId),
            text: try container.decode(String.self, forKey: .text),
            mentionedUserIds: try container.decodeIfPresent([String].self, forKey: .mentionedUserIds) ?? [],
            metadata: try container.decodeIfPresent([String: JSON].self, forKey: .metadata) ?? [:],
            messageId: try container.decodeIfPresent(String.self, forKey: .messageId))
    }
}
