/// The server's answer to a `ChatRequest`; each request case names the response case it gets.
public enum ChatResponse: Sendable, Hashable, Codable {
    /// Done; nothing to return.
    case empty
    /// A channel as the requesting user sees it.
    case channel(Channel)
    /// A page of channels.
    case channels(Page<Channel>)
    /// The member records a member operation changed, after the change.
    case members([ChannelMember])
    /// A page of members.
    case memberPage(Page<ChannelMember>)
    /// A message.
    case message(Message)
    /// A page of messages.
    case messages(MessagePage)
    /// A user.
    case user(User)
    /// A page of users.
    case users(Page<User>)
    /// A yes/no answer.
    case bool(Bool)
    /// A channel's flag reports.
    case flagReports([FlagReport])
    /// A channel's content filters.
    case moderationSettings(ModerationSettings)
}

extension ChatResponse {
    /// The channel of a `.channel` response, else `nil`.
    public var channelValue: Channel? { if case .channel(let value) = self { value } else { nil } }
    /// The page of a `.channels` response, else `nil`.
    public var channelsValue: Page<Channel>? {
        if case .channels(let value) = self { value } else { nil }
    }
    /// The members of a `.members` response, else `nil`.
    public var membersValue: [ChannelMember]? {
        if case .members(let value) = self { value } else { nil }
    }
    /// The page of a `.memberPage` response, else `nil`.
    public var memberPageValue: Page<ChannelMember>? {
        if case .memberPage(let value) = self { value } else { nil }
    }
    /// The message of a `.message` response, else `nil`.
    public var messageValue: Message? { if case .message(let value) = self { value } else { nil } }
    /// The page of a `.messages` response, else `nil`.
    public var messagesValue: MessagePage? {
        if case .messages(let value) = self { value } else { nil }
    }
    /// The user of a `.user` response, else `nil`.
    public var userValue: User? { if case .user(let value) = self { value } else { nil } }
    /// The page of a `.users` response, else `nil`.
    public var usersValue: Page<User>? { if case .users(let value) = self { value } else { nil } }
    /// The reports of a `.flagReports` response, else `nil`.
    public var flagReportsValue: [FlagReport]? {
        if case .flagReports(let value) = self { value } else { nil }
    }
    /// The settings of a `.moderationSettings` response, else `nil`.
    public var moderationSettingsValue: ModerationSettings? {
        if case .moderationSettings(let value) = self { value } else { nil }
    }
    /// The answer of a `.bool` response, else `nil`.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
}
