import ChatAPI

/// A push for one registered device of a member who is away, as the server decides it when a
/// message is sent (see ``PushSink``): the payload `Docs/Protocol.md` and the providers carry.
public struct PushNotification: Sendable, Hashable {
    /// The member it is for.
    public var userId: String
    /// The device token and its provider.
    public var device: PushDevice
    /// The channel's display name (its id without one), or, in a conversation, the sender's.
    public var title: String
    /// The sender's name, a colon and the text, cut to 200 characters.
    public var body: String
    /// The member's total unread count, the message included.
    public var badge: Int
    public var channelId: String
    public var messageId: String
    /// The thread the device groups it under: the channel's id.
    public var threadId: String { channelId }

    public init(
        userId: String, device: PushDevice, title: String, body: String, badge: Int, channelId: String,
        messageId: String
    ) {
        self.userId = userId
        self.device = device
        self.title = title
        self.body = body
        self.badge = badge
        self.channelId = channelId
        self.messageId = messageId
    }
}

/// Where a server hands the pushes of each message it sends (``ChatServer/deliverPushes(to:)``):
/// a queue that providers drain. It is called while the server holds its lock, so it must only
/// take the pushes and return (never wait, never call the server); a queue that is full drops
/// what does not fit. On a cluster, only the node that wrote a message hands its pushes, once.
public protocol PushSink: Sendable {
    /// Takes the pushes of one message (at least one).
    func enqueue(_ notifications: [PushNotification])
}
