import ChatAPI

/// Everything a user may or may not do in a channel. One permission function
/// (``ServerState/authorize(_:by:in:now:)``) decides each, for the request path and for
/// `hasPermission` alike.
enum ServerAction: Sendable, Hashable, CaseIterable {
    case view, join, leave, read, sendMessage
    case editChannel, deleteChannel
    case addMember, removeMember, banMember, muteMember, manageRoles
    case manageRateLimit, muteChannel
    case editAnyMessage, deleteAnyMessage
    /// Flag messages and users (members; community and live channels).
    case flag
    /// Read flag reports and change content filters (moderators).
    case reviewFlags, manageContentFilters

    /// Actions that make no sense in a conversation (no membership changes, no moderation).
    var isRefusedInConversations: Bool {
        switch self {
        case .join, .leave, .addMember, .removeMember, .banMember, .muteMember, .manageRoles,
            .manageRateLimit, .muteChannel, .flag, .reviewFlags, .manageContentFilters:
            true
        default:
            false
        }
    }

    /// Actions reserved to channel moderators (and admins).
    var isModeration: Bool {
        switch self {
        case .removeMember, .banMember, .muteMember, .manageRoles, .manageRateLimit, .muteChannel,
            .editAnyMessage, .deleteAnyMessage, .reviewFlags, .manageContentFilters:
            true
        default:
            false
        }
    }

    /// Words for error messages: "… cannot \(verb)".
    var verb: String {
        switch self {
        case .view: "see this channel"
        case .join: "join"
        case .leave: "leave"
        case .read: "read messages"
        case .sendMessage: "send messages"
        case .editChannel: "edit the channel"
        case .deleteChannel: "delete the channel"
        case .addMember: "add members"
        case .removeMember: "remove members"
        case .banMember: "ban or unban members"
        case .muteMember: "mute or unmute members"
        case .manageRoles: "change member roles"
        case .manageRateLimit: "change the rate limit"
        case .muteChannel: "mute or unmute the channel"
        case .editAnyMessage: "edit other users' messages"
        case .deleteAnyMessage: "delete other users' messages"
        case .flag: "flag messages or users"
        case .reviewFlags: "review flags"
        case .manageContentFilters: "change content filters"
        }
    }
}
