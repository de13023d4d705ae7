/// A page of messages in ascending sequence order.
public struct MessagePage: Sendable, Hashable, Codable {
    /// The messages, oldest first.
    public var messages: [Message]
    /// Whether older messages exist before the first one.
    public var hasPrevious: Bool
    /// Whether newer messages exist after the last one.
    public var hasNext: Bool

    /// A page; `messages` must be in ascending sequence order.
    public init(messages: [Message], hasPrevious: Bool, hasNext: Bool) {
        self.messages = messages
        self.hasPrevious = hasPrevious
        self.hasNext = hasNext
    }
}
