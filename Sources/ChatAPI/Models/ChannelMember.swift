import Foundation

/// A user's membership record in one channel.
public struct ChannelMember: Sendable, Hashable, Codable, Identifiable {
    /// The channel.
    public var channelId: String
    /// The member's user id.
    public var userId: String
    /// Channel roles such as `"moderator"`.
    public var roles: [String]
    /// `.member`, or `.banned` for a banned user (kept so ban lists can be shown).
    public var membership: Membership
    /// When a mute ends; `nil` when not muted. A mute with no end is `Date.distantFuture`.
    public var mutedUntil: Date?
    /// Whether the member was muted when this value was produced.
    public var isMuted: Bool
    /// When the user (last) joined the channel.
    public var joinedAt: Date
    /// The sequence number of the last message this member has read.
    public var readSequence: Int
    /// The member's profile (display name, presence, …), filled in by the server and kept live
    /// by the client as the user changes; `nil` when not known.
    public var user: User?

    /// The server's revision of this value; of two values of one member the one with the higher
    /// version is the newer. Bookkeeping, not content: `==` and `hash(into:)` ignore it. 0 for
    /// values not made by a server.
    public var version: Int = 0

    /// Members of one channel are identified by their user id.
    public var id: String { userId }

    /// A member as the server describes it (tests and transports build these).
    public init(
        channelId: String,
        userId: String,
        roles: [String] = [],
        membership: Membership = .member,
        mutedUntil: Date? = nil,
        isMuted: Bool = false,
        joinedAt: Date = Date(timeIntervalSince1970: 0),
        readSequence: Int = 0,
        user: User? = nil
    ) {
        self.channelId = channelId
        self.userId = userId
        self.roles = roles
        self.membership = membership
        self.mutedUntil = mutedUntil
        self.isMuted = isMuted
        self.joinedAt = joinedAt
        self.readSequence = readSequence
        self.user = user
    }
}

extension ChannelMember {
    /// Equal content, whatever the versions.
    public static func == (lhs: ChannelMember, rhs: ChannelMember) -> Bool {
        lhs.channelId == rhs.channelId && lhs.userId == rhs.userId && lhs.roles == rhs.roles
            && lhs.membership == rhs.membership && lhs.mutedUntil == rhs.mutedUntil
            && lhs.isMuted == rhs.isMuted && lhs.joinedAt == rhs.joinedAt
            && lhs.readSequence == rhs.readSequence
            && lhs.user == rhs.user
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(channelId)
        hasher.combine(userId)
        hasher.combine(roles)
        hasher.combine(membership)
        hasher.combine(mutedUntil)
        hasher.combine(isMuted)
        hasher.combine(joinedAt)
        hasher.combine(readSequence)
    }
}
