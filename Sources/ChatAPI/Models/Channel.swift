import Foundation

/// A channel as one user sees it: the seed's channel model plus that user's view of it
/// (membership, unread count, mention flag).
///
/// Values are immutable snapshots; live handles deliver a new value whenever the channel or the
/// user's read state changes.
public struct Channel: Sendable, Hashable, Codable, Identifiable {
    /// The stored fields, shared by copies until one is changed (copy-on-write). A channel is
    /// copied into every list snapshot that shows it, once per commit: one reference is much
    /// cheaper to copy than twenty-odd fields.
    private var box: Box

    /// The server's revision of this value: it grows with every change of the channel (and of
    /// the viewing user's membership in it), so of two values of one channel the one with the
    /// higher version is the newer. Bookkeeping, not content: `==` and `hash(into:)` ignore it.
    /// 0 for values not made by a server.
    public var version: Int = 0

    // @unchecked Sendable: `fields` is written only by `update(_:)`, and only while this box
    // is the one value's own (`isKnownUniquelyReferenced`); a shared box is only read.
    final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    struct Fields: Sendable, Hashable, Codable {
        var channelId: String
        var isDistinct: Bool
        var metadata: [String: JSON]
        var type: ChannelType
        var tags: [String]
        var isMuted: Bool
        var isRateLimited: Bool
        var rateLimit: Int
        var rateLimitWindow: Double
        var displayName: String?
        var memberCount: Int
        var messageCount: Int
        var lastActivity: Date
        var createdAt: Date
        var updatedAt: Date
        var avatarFileId: String?
        var creatorId: String?
        var isDeleted: Bool
        var lastMessageAt: Date?
        var lastSequence: Int
        var currentUserMembership: Membership
        var readSequence: Int
        var hasMention: Bool
    }

    /// Whether `other` is a copy of this very value, neither changed since: the same storage
    /// and the same `version` (kept beside it), so every field is equal without comparing any.
    /// `false` says nothing (equal values may have storages of their own).
    /// - Complexity: O(1).
    func isUnchangedCopy(of other: Channel) -> Bool { box === other.box && version == other.version }

    /// Changes the fields: in place when no other value shares the box, else in a copy (so a
    /// run of changes to one value copies the fields once).
    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }

    /// The channel's unique, immutable id.
    public var channelId: String {
        get { box.fields.channelId }
        set { update { $0.channelId = newValue } }
    }

    /// Whether the channel is unique by its member set (true for conversations).
    public var isDistinct: Bool {
        get { box.fields.isDistinct }
        set { update { $0.isDistinct = newValue } }
    }

    /// Custom fields, a JSON object of at most 100 KB encoded; empty when unset.
    public var metadata: [String: JSON] {
        get { box.fields.metadata }
        set { update { $0.metadata = newValue } }
    }

    /// The channel type.
    public var type: ChannelType {
        get { box.fields.type }
        set { update { $0.type = newValue } }
    }

    /// Tags used for searching.
    public var tags: [String] {
        get { box.fields.tags }
        set { update { $0.tags = newValue } }
    }

    /// Whether the whole channel is muted (nobody but moderators can send).
    public var isMuted: Bool {
        get { box.fields.isMuted }
        set { update { $0.isMuted = newValue } }
    }

    /// Whether a send rate limit is in force.
    public var isRateLimited: Bool {
        get { box.fields.isRateLimited }
        set { update { $0.isRateLimited = newValue } }
    }

    /// The number of messages a member may send per rate-limit window (0 when not limited).
    public var rateLimit: Int {
        get { box.fields.rateLimit }
        set { update { $0.rateLimit = newValue } }
    }

    /// The length of the rate-limit window in seconds (0 when not limited).
    public var rateLimitWindow: Double {
        get { box.fields.rateLimitWindow }
        set { update { $0.rateLimitWindow = newValue } }
    }

    /// The display name, if one was set.
    public var displayName: String? {
        get { box.fields.displayName }
        set { update { $0.displayName = newValue } }
    }

    /// The number of members.
    public var memberCount: Int {
        get { box.fields.memberCount }
        set { update { $0.memberCount = newValue } }
    }

    /// The number of messages sent (deleted ones included).
    public var messageCount: Int {
        get { box.fields.messageCount }
        set { update { $0.messageCount = newValue } }
    }

    /// The last activity related to the channel (a message, a member change).
    public var lastActivity: Date {
        get { box.fields.lastActivity }
        set { update { $0.lastActivity = newValue } }
    }

    /// When the channel was created.
    public var createdAt: Date {
        get { box.fields.createdAt }
        set { update { $0.createdAt = newValue } }
    }

    /// When the channel's own fields (name, metadata, tags, ...) last changed.
    public var updatedAt: Date {
        get { box.fields.updatedAt }
        set { update { $0.updatedAt = newValue } }
    }

    /// The avatar file id, if one was set.
    public var avatarFileId: String? {
        get { box.fields.avatarFileId }
        set { update { $0.avatarFileId = newValue } }
    }

    /// The id of the user (or console) that created the channel.
    public var creatorId: String? {
        get { box.fields.creatorId }
        set { update { $0.creatorId = newValue } }
    }

    /// Whether the channel was deleted.
    public var isDeleted: Bool {
        get { box.fields.isDeleted }
        set { update { $0.isDeleted = newValue } }
    }

    /// When the last message was sent; `nil` before the first message.
    public var lastMessageAt: Date? {
        get { box.fields.lastMessageAt }
        set { update { $0.lastMessageAt = newValue } }
    }

    /// The sequence number of the last message (messages are numbered 1, 2, 3 … per channel);
    /// 0 before the first message.
    public var lastSequence: Int {
        get { box.fields.lastSequence }
        set { update { $0.lastSequence = newValue } }
    }

    /// The viewing user's membership.
    public var currentUserMembership: Membership {
        get { box.fields.currentUserMembership }
        set { update { $0.currentUserMembership = newValue } }
    }

    /// The sequence number of the last message the viewing user has read (0: none).
    public var readSequence: Int {
        get { box.fields.readSequence }
        set { update { $0.readSequence = newValue } }
    }

    /// Whether a message after the viewing user's read marker mentions them.
    public var hasMention: Bool {
        get { box.fields.hasMention }
        set { update { $0.hasMention = newValue } }
    }

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
        box = Box(
            Fields(
                channelId: channelId,
                isDistinct: isDistinct,
                metadata: metadata,
                type: type,
                tags: tags,
                isMuted: isMuted,
                isRateLimited: isRateLimited,
                rateLimit: rateLimit,
                rateLimitWindow: rateLimitWindow,
                displayName: displayName,
                memberCount: memberCount,
                messageCount: messageCount,
                lastActivity: lastActivity,
                createdAt: createdAt,
                updatedAt: updatedAt,
                avatarFileId: avatarFileId,
                creatorId: creatorId,
                isDeleted: isDeleted,
                lastMessageAt: lastMessageAt,
                lastSequence: lastSequence,
                currentUserMembership: currentUserMembership,
                readSequence: readSequence,
                hasMention: hasMention))
    }
}

extension Channel {
    public static func == (lhs: Channel, rhs: Channel) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
    }

    private enum VersionKey: String, CodingKey { case version }

    public init(from decoder: any Decoder) throws {
        box = Box(try Fields(from: decoder))
        version = try decoder.container(keyedBy: VersionKey.self).decodeIfPresent(Int.self, forKey: .version) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
        var container = encoder.container(keyedBy: VersionKey.self)
        try container.encode(version, forKey: .version)
    }
}
