import Foundation

/// A user of the chat.
public struct User: Sendable, Hashable, Codable, Identifiable {
    /// The user's unique id.
    public var userId: String
    /// The name shown to others, if set.
    public var displayName: String?
    /// Custom fields.
    public var metadata: [String: JSON]
    /// Whether the user is an administrator (sends to broadcast channels, moderates everywhere,
    /// sees every channel).
    public var isAdmin: Bool
    /// When the user was registered.
    public var createdAt: Date
    /// When the user's profile last changed.
    public var updatedAt: Date
    /// Whether any device of the user is connected right now (presence), kept live by the
    /// server for everyone who can see the user.
    public var isOnline: Bool
    /// When the user was last connected: set when their last device disconnects; `nil` if the
    /// user never connected.
    public var lastActiveAt: Date?

    /// The server's revision of this value; of two values of one user the one with the higher
    /// version is the newer. Bookkeeping, not content: `==` and `hash(into:)` ignore it. 0 for
    /// values not made by a server.
    public var version: Int = 0

    public var id: String { userId }

    /// A user as the server describes it (tests and transports build these).
    public init(
        userId: String,
        displayName: String? = nil,
        metadata: [String: JSON] = [:],
        isAdmin: Bool = false,
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0),
        isOnline: Bool = false,
        lastActiveAt: Date? = nil
    ) {
        self.userId = userId
        self.displayName = displayName
        self.metadata = metadata
        self.isAdmin = isAdmin
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.isOnline = isOnline
        self.lastActiveAt = lastActiveAt
    }
}

extension User {
    /// Equal content, whatever the versions.
    public static func == (lhs: User, rhs: User) -> Bool {
        lhs.userId == rhs.userId && lhs.displayName == rhs.displayName && lhs.metadata == rhs.metadata
            && lhs.isAdmin == rhs.isAdmin && lhs.createdAt == rhs.createdAt
            && lhs.updatedAt == rhs.updatedAt
            && lhs.isOnline == rhs.isOnline && lhs.lastActiveAt == rhs.lastActiveAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(userId)
        hasher.combine(displayName)
        hasher.combine(metadata)
        hasher.combine(isAdmin)
        hasher.combine(createdAt)
        hasher.combine(updatedAt)
        hasher.combine(isOnline)
    }
}
