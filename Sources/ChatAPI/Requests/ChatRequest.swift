import Foundation

/// Every operation a client asks of the server. Sent with `ChatTransport.send(_:)`, which
/// answers with the `ChatResponse` named on each case or throws a `ChatError`.
///
/// Rules common to all: the server validates the request first (bad input:
/// `.invalidArgument` naming the field; a missing or invisible channel, message or user:
/// `.notFound`; a rule of the channel type: `.notAllowed`; a missing permission: `.forbidden`)
/// and a request that fails changes nothing. Every change it makes is also pushed as
/// `ChatEvent`s to the connections that may see it, this one included.
///
/// Durations are seconds; a `period` of `-1` means "until undone".
public enum ChatRequest: Sendable, Hashable, Codable {
    // MARK: Channels

    /// Creates a channel; the creator becomes a member. A conversation whose member set exists
    /// already returns the existing channel. → `.channel`.
    /// Errors: `.alreadyExists` (id in use), `.notAllowed` (type not creatable by clients),
    /// `.invalidArgument`, `.limitExceeded` (metadata over 100 KB, more than 300,000 members).
    case createChannel(ChannelDraft)
    /// Joins a channel; idempotent. → `.channel`.
    /// Errors: `.notAllowed` (conversation), `.forbidden` (banned).
    case joinChannel(channelId: String)
    /// Leaves a channel. → `.empty`. Errors: `.notAllowed` (conversation).
    case leaveChannel(channelId: String)
    /// Fetches a channel without joining it. → `.channel`.
    case getChannel(channelId: String)
    /// The page of visible channels matching `query` after `cursor` (`nil`: the first page).
    /// → `.channels`. Errors: `.invalidArgument` (invalid query or foreign cursor).
    case queryChannels(ChannelListQuery, after: PageCursor?)
    /// Changes a channel's display name, avatar, tags or metadata. → `.channel`.
    /// Errors: `.forbidden` (no `.editChannel`), `.limitExceeded` (metadata over 100 KB).
    case updateChannel(ChannelChanges)
    /// Deletes a channel (it stays visible with `isDeleted`). → `.empty`.
    /// Errors: `.forbidden` (no `.deleteChannel`).
    case deleteChannel(channelId: String)
    /// Mutes the whole channel for `period` seconds (`-1`: until unmuted); only moderators
    /// can send meanwhile. → `.channel`. Errors: `.forbidden`, `.notAllowed` (conversation).
    case muteChannel(channelId: String, period: Double)
    /// Lifts a channel mute. → `.channel`.
    case unmuteChannel(channelId: String)
    /// For `period` seconds (`-1`: until removed), each member may send at most `limit`
    /// messages per `window` seconds. → `.channel`. Errors: `.forbidden`, `.invalidArgument`.
    case setRateLimit(channelId: String, period: Double, limit: Int, window: Double)
    /// Removes the rate limit. → `.channel`.
    case removeRateLimit(channelId: String)

    // MARK: Members

    /// Adds users as members. → `.members` (the added members).
    /// Errors: `.notAllowed` (conversation), `.forbidden`, `.notFound` (unknown user),
    /// `.limitExceeded` (300,000 members).
    case addMembers(channelId: String, userIds: [String])
    /// Removes members. → `.members` (their records, membership `.none`).
    /// Errors: `.notAllowed` (conversation), `.forbidden`.
    case removeMembers(channelId: String, userIds: [String])
    /// The page of members matching `query` after `cursor`. → `.memberPage`.
    case queryMembers(MemberListQuery, after: PageCursor?)
    /// Bans users: they stop being members and cannot rejoin until unbanned. → `.members`.
    /// Errors: `.notAllowed` (conversation), `.forbidden`.
    case banMembers(channelId: String, userIds: [String])
    /// Lifts bans (the users do not become members again). → `.members`.
    case unbanMembers(channelId: String, userIds: [String])
    /// Mutes members for `period` seconds (`-1`: until unmuted). → `.members`.
    case muteMembers(channelId: String, userIds: [String], period: Double)
    /// Unmutes members. → `.members`.
    case unmuteMembers(channelId: String, userIds: [String])
    /// Gives members a channel role such as `"moderator"`. → `.members`.
    case addRole(String, channelId: String, userIds: [String])
    /// Takes a channel role away. → `.members`.
    case removeRole(String, channelId: String, userIds: [String])

    // MARK: Messages

    /// Sends a message; it gets the channel's next sequence number. → `.message`.
    /// Errors: `.forbidden` (not a member, muted, broadcast and not admin), `.rateLimited`,
    /// `.invalidArgument` (empty text).
    case sendMessage(MessageDraft)
    /// Replaces a message's text, mentions and metadata with `draft`'s. → `.message`.
    /// Errors: `.forbidden` (another user's message without `.editAnyMessage`).
    case editMessage(messageId: String, draft: MessageDraft)
    /// Deletes a message (it keeps its sequence number). → `.message`.
    /// Errors: `.forbidden` (another user's message without `.deleteAnyMessage`).
    case deleteMessage(channelId: String, messageId: String)
    /// A page of a channel's messages by sequence number. → `.messages`.
    case queryMessages(MessagePageQuery)

    // MARK: Flags and content filters (community and live channels)

    /// Flags a message for the channel's moderators; idempotent. → `.empty`.
    /// Errors: `.notAllowed` (not a community or live channel), `.forbidden` (not a member).
    case flagMessage(channelId: String, messageId: String)
    /// Withdraws this user's flag of a message. → `.empty`.
    case unflagMessage(channelId: String, messageId: String)
    /// Flags a member (or banned user) of the channel for its moderators; idempotent. → `.empty`.
    /// Errors: as `flagMessage`, and `.notFound` for a user who is neither.
    case flagUser(channelId: String, userId: String)
    /// Withdraws this user's flag of a user. → `.empty`.
    case unflagUser(channelId: String, userId: String)
    /// What was flagged in the channel, for its moderators. → `.flagReports`.
    /// Errors: `.forbidden` (not a moderator or admin).
    case flagReports(channelId: String)
    /// The channel's content filters, for its moderators. → `.moderationSettings`.
    case getModerationSettings(channelId: String)
    /// Replaces the channel's content filters. → `.moderationSettings`.
    /// Errors: `.forbidden`, `.invalidArgument` (`blockedWords`, `allowedURLDomains`).
    case setModerationSettings(channelId: String, ModerationSettings)

    // MARK: Reading and typing

    /// This device is reading the channel: the user's read marker moves to the last message
    /// and follows new ones until every device of the user stops reading (or disconnects).
    /// → `.channel`. Errors: `.forbidden` (not a member).
    case startReading(channelId: String)
    /// This device stopped reading the channel. → `.empty`.
    case stopReading(channelId: String)
    /// The user started typing in the channel. → `.empty`.
    case startTyping(channelId: String)
    /// The user stopped typing. → `.empty`.
    case stopTyping(channelId: String)

    // MARK: Users

    /// Fetches a user. → `.user`.
    case getUser(userId: String)
    /// The page of users whose display name starts with the query's prefix. → `.users`.
    case searchUsers(UserSearchQuery, after: PageCursor?)
    /// Changes the current user's display name and/or metadata (`nil`: unchanged). → `.user`.
    case updateCurrentUser(displayName: String?, metadata: [String: JSON]?)

    // MARK: Push notifications

    /// Registers a push token for the current user, as this device's: pushes reach it while the
    /// user has no device connected. A token registered by another user moves to this one.
    /// → `.empty`. Errors: `.invalidArgument` (`device`).
    case addPushDevice(PushDevice)
    /// Removes a push token of the current user: the one whose ``PushDevice/id`` is `id`, or
    /// (`nil`) every token this device registered. → `.empty`. Errors: `.notFound` (no such
    /// token of the user).
    case removePushDevice(id: String?)
    /// Turns the current user's push notifications of a channel on or off (on by default).
    /// → `.empty`. Errors: `.notFound` (the channel), `.forbidden` (not a member).
    case setChannelNotifications(channelId: String, enabled: Bool)
    /// Whether the current user's push notifications of a channel are on. → `.bool`.
    /// Errors: `.notFound`, `.forbidden` (not a member).
    case getChannelNotifications(channelId: String)

    // MARK: Permissions

    /// Whether the current user has `permission` in the channel. → `.bool`.
    case hasPermission(Permission, channelId: String)
}
