/// Events, as `ChatEvent`'s synthesized `Codable` writes them: `{"case":{…}}`, the payload's
/// keys the associated values' labels, `_0` for the unlabelled first one
/// (`{"messageNew":{"_0":MESSAGE,"channel":CHANNEL}}`).
extension WireJSONWriter {
    /// Writes an event (the `event` of an event frame's envelope).
    ///
    /// - Throws: ``WireJSONWriter/Unwritable`` for a value `JSONEncoder` must decide on (a
    ///   non-finite number, metadata nested too deep).
    /// - Complexity: O(size of the event).
    package mutating func event(_ event: ChatEvent) throws(Unwritable) {
        switch event {
        case .channelCreated(let channel): try channelCase("channelCreated", channel)
        case .channelUpdated(let channel): try channelCase("channelUpdated", channel)
        case .channelDeleted(let channel): try channelCase("channelDeleted", channel)
        case .memberAdded(let member, let channel): try memberCase("memberAdded", member, channel: channel)
        case .memberRemoved(let member, let channel): try memberCase("memberRemoved", member, channel: channel)
        case .memberBanned(let member, let channel): try memberCase("memberBanned", member, channel: channel)
        case .memberUnbanned(let member, let channel): try memberCase("memberUnbanned", member, channel: channel)
        case .memberMuted(let member): try memberCase("memberMuted", member, channel: nil)
        case .memberUnmuted(let member): try memberCase("memberUnmuted", member, channel: nil)
        case .memberRoleChanged(let member): try memberCase("memberRoleChanged", member, channel: nil)
        case .readMarkerMoved(let member, let channel): try memberCase("readMarkerMoved", member, channel: channel)
        case .messageNew(let message, let channel): try messageCase("messageNew", message, channel: channel)
        case .messageUpdated(let message): try messageCase("messageUpdated", message, channel: nil)
        case .messageDeleted(let message): try messageCase("messageDeleted", message, channel: nil)
        case .typingStarted(let channelId, let userId): typingCase("typingStarted", channelId, userId)
        case .typingStopped(let channelId, let userId): typingCase("typingStopped", channelId, userId)
        case .userUpdated(let user): try userCase("userUpdated", user)
        case .presenceChanged(let user): try userCase("presenceChanged", user)
        }
    }

    /// `{"name":{"_0":VALUE,"channel":CHANNEL}}`, `value` writing VALUE; without `channel` for
    /// the cases that have none.
    private mutating func valueCase(
        _ name: StaticString, channel: Channel? = nil, _ value: (inout WireJSONWriter) throws(Unwritable) -> Void
    ) throws(Unwritable) {
        beginCase(name)
        key("_0")
        try value(&self)
        if let channel {
            key("channel")
            try self.channel(channel)
        }
        endCase()
    }

    private mutating func channelCase(_ name: StaticString, _ channel: Channel) throws(Unwritable) {
        try valueCase(name) { writer throws(Unwritable) in try writer.channel(channel) }
    }

    private mutating func memberCase(_ name: StaticString, _ member: ChannelMember, channel: Channel?)
        throws(Unwritable)
    {
        try valueCase(name, channel: channel) { writer throws(Unwritable) in try writer.member(member) }
    }

    private mutating func messageCase(_ name: StaticString, _ message: Message, channel: Channel?)
        throws(Unwritable)
    {
        try valueCase(name, channel: channel) { writer throws(Unwritable) in try writer.message(message) }
    }

    private mutating func userCase(_ name: StaticString, _ user: User) throws(Unwritable) {
        try valueCase(name) { writer throws(Unwritable) in try writer.user(user) }
    }

    /// `{"name":{"channelId":…,"userId":…}}`.
    private mutating func typingCase(_ name: StaticString, _ channelId: String, _ userId: String) {
        beginCase(name)
        field("channelId", channelId)
        field("userId", userId)
        endCase()
    }
}
