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

    public var id: String { userId }

    public init(
        userId: String,
        displayName: String? = nil,
        metadata: [String: JSON] = [:],
        isAdmin: Bool = false,
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.userId = userId
        self.displayName = displayName
        self.metadata = metadata
        self.isAdmin = isAdmin
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
