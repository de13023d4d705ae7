import ChatAPI

// Stream Chat's names for the models, so code written against Stream's iOS SDK reads the same.
// Each is the very same type (an alias): a `ChatChannel` is a `Channel`.

/// Stream's name for ``Channel``.
public typealias ChatChannel = Channel
/// Stream's name for ``User``.
public typealias ChatUser = User
/// Stream's name for ``Message``.
public typealias ChatMessage = Message
/// Stream's name for ``ChannelMember``.
public typealias ChatChannelMember = ChannelMember
/// Stream's name for a channel's id (a plain string here: `Channel.channelId`).
public typealias ChannelId = String
/// Stream's name for a user's id (`User.userId`).
public typealias UserId = String
/// Stream's name for a message's id (`Message.messageId`).
public typealias MessageId = String
