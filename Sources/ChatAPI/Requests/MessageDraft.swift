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
