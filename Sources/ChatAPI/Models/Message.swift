import Foundation

/// A message in a channel.
public struct Message: Sendable, Hashable, Codable, Identifiable {
    /// The message's unique id.
    public var messageId: String
    /// The channel it was sent to.
    public var channelId: String
    /// Its position in the channel: 1 for the first message, then 2, 3, … without gaps.
    public var sequence: Int
    /// The sender's user id.
    public var userId: String
    /// The text (empty once deleted).
    public var text: String
    /// Users mentioned by the message.
    public var mentionedUserIds: [String]
    /// Custom fields.
    public var metadata: [String: JSON]
    /// When it was sent.
    public var createdAt: Date
    /// When it was last edited; `nil` if never.
    public var editedAt: Date?
    /// Whether it was deleted.
    public var isDeleted: Bool

    /// The server's revision of this value; of two values of one message the one with the higher
    /// version is the newer. Bookkeeping, not content: `==` and `hash(into:)` ignore it. 0 for
    /// values not made by a server.
    public var version: Int = 0

    /// Where the message stands between the device and the server: ``MessageSyncState/synced``
    /// for every message the server sent; a message created on the device
    /// (`MessageRepository.createMessage`) is ``MessageSyncState/syncing`` (with `sequence` 0)
    /// until the server stored it. Local only: never on the wire (not in `Codable`).
    public var syncState: MessageSyncState = .synced

    public var id: String { messageId }

    /// Every field but ``syncState``, which is local only.
    private enum CodingKeys: String, CodingKey {
        case messageId, channelId, sequence, userId, text, mentionedUserIds, metadata, createdAt, editedAt, isDeleted
        case version
    }

    /// A message as the server describes it (tests and transports build these).
    public init(
        messageId: String,
        channelId: String,
        sequence: Int,
        userId: String,
        text: String,
        mentionedUserIds: [String] = [],
        metadata: [String: JSON] = [:],
        createdAt: Date = Date(timeIntervalSince1970: 0),
        editedAt: Date? = nil,
        isDeleted: Bool = false
    ) {
        self.messageId = messageId
        self.channelId = channelId
        self.sequence = sequence
        self.userId = userId
        self.text = text
        self.mentionedUserIds = mentionedUserIds
        self.metadata = metadata
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.isDeleted = isDeleted
    }
}

extension Message {
    /// Equal content and sync state, whatever the versions.
    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.messageId == rhs.messageId && lhs.channelId == rhs.channelId && lhs.sequence == rhs.sequence
            && lhs.userId == rhs.userId && lhs.text == rhs.text
            && lhs.mentionedUserIds == rhs.mentionedUserIds && lhs.metadata == rhs.metadata
            && lhs.createdAt == rhs.createdAt && lhs.editedAt == rhs.editedAt
            && lhs.isDeleted == rhs.isDeleted && lhs.syncState == rhs.syncState
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(messageId)
        hasher.combine(channelId)
        hasher.combine(sequence)
        hasher.combine(userId)
        hasher.combine(text)
        hasher.combine(mentionedUserIds)
        hasher.combine(metadata)
        hasher.combine(createdAt)
        hasher.combine(editedAt)
        hasher.combine(isDeleted)
        hasher.combine(syncState)
    }
}
