import Foundation

/// A channel as one user sees it: the seed's channel model plus that user's view of it
/// (membership, unread count, mention flag).
///
/// Values are immutable snapshots; live handles deliver a new value whenever the channel or the
/// user's read state changes.
public struct Channel: Sendable, Hashable, Codable, Identifiable {
    /// The channel's unique, immutable id.
    public var channelId: String
    /// Whether the channel is unique by its member set (true for conversations).
    public var isDistinct: Bool
    /// Custom fields, a JSON object of at most 100 KB encoded; empty when unset.
    public var metadata: [String: JSON]
    /// The channel type.
    public var type: ChannelType
    /// Tags used for searching.
    public var tags: [String]
    /// Whether the whole channel is muted (nobody but moderators can send).
    public var isMuted: Bool
    /// Whether a send rate limit is in force.
    public var isRateLimited: Bool
    /// The number of messages a member may send per rate-limit window (0 when not limited).
    public var rateLimit: Int
    /// The length of the rate-limit window in seconds (0 when not limited).
    public var rateLimitWindow: Double
    /// The display name, if one was set.
    public var displayName: String?
    /// The number of members.
    public var memberCount: Int
    /// The number of messages sent (deleted ones included).
    public var messageCount: Int
    /// The last activity related to the channel (a message, a member change).
    public var lastActivity: Date
    /// When the channel was created.
    public var createdAt: Date
    /// When the channel's own fields (name, metadata, tags, ...) last changed.
    public var updatedAt: Date
    /// The avatar file id, if one was set.
    public var avatarFileId: String?
    /// The id of the user (or console) that created the channel.
    public var creatorId: String?
    /// Whether the channel was deleted.
    public var isDeleted: Bool
    /// When the last message was sent; `nil` before the first message.
    public var lastMessageAt: Date?
    /// The sequence number of the last message (messages are numbered 1, 2, 3 … per channel);
    /// 0 before the first message.
    public var lastSequence: Int

    // MARK: The viewing user's view

    /// The viewing user's membership.
    public var currentUserMembership: Membership
    /// The sequence number of the last message the viewing user has read (0: none).
    public var readSequence: Int
    /// Whether a message after the viewing user's read marker mentions them.
    public var hasMention: Bool

    /// The number of messages after the viewing user's read marker; 0 for non-members.
    public var unreadCount: Int {
        currentUserMembership == .member ? max(0, lastSequence - readSequence) : 0
    }

    public var id: String { channelId }

    /// Creates a channel value. Every field but `channelId` and `type` has a neutral default.
    public init(
        channelId: String,
        type: ChannelType,
        isDistinct: Bool = false,
        metadata: [String: JSON] = [:],
        tags: [String] = [],
        isMuted: Bool = false,
        isRateLimited: Bool = false,
        rateLimit: Int = 0,
        rateLimitWindow: Double = 0,
        displayName: String? = nil,
        memberCount: Int = 0,
        messageCount: Int = 0,
        lastActivity: Date = Date(timeIntervalSince1970: 0),
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0),
        avatarFileId: String? = nil,
        creatorId: String? = nil,
        isDeleted: Bool = false,
        lastMessageAt: Date? = nil,
        lastSequence: Int = 0,
        currentUserMembership: Membership = .none,
        readSequence: Int = 0,
        hasMention: Bool = false
    ) {
        self.channelId = channelId
        self.type = type
        self.isDistinct = isDistinct
        self.metadata = metadata
        self.tags = tags
        self.isMuted = isMuted
        self.isRateLimited = isRateLimited
        self.rateLimit = rateLimit
        self.rateLimitWindow = rateLimitWindow
        self.displayName = displayName
        self.memberCount = memberCount
        self.messageCount = messageCount
        self.lastActivity = lastActivity
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.avatarFileId = avatarFileId
        self.creatorId = creatorId
        self.isDeleted = isDeleted
        self.lastMessageAt = lastMessageAt
        self.lastSequence = lastSequence
        self.currentUserMembership = currentUserMembership
        self.readSequence = readSequence
        self.hasMention = hasMention
    }
}
