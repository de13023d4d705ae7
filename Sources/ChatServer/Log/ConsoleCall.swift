import ChatAPI
import Foundation

/// A console call of ``ChatServer`` (its trusted server-side methods), as the change log
/// carries it: applied by ``ServerCore/apply(_:now:)`` on a single node and on every node of a
/// cluster alike.
enum ConsoleCall: Sendable, Hashable {
    case registerUser(id: String, displayName: String?, isAdmin: Bool)
    case createChannel(ChannelDraft)
    case updateChannel(ChannelChanges)
    case addMembers([String], channelId: String)
    case sendMessage(userId: String, MessageDraft)
    case deleteChannel(String)
    /// A moderation request made by the console (permissions bypassed): removing, banning,
    /// unbanning, muting or unmuting members, deleting a message (``ServerState/moderate(_:now:)``).
    case moderate(ChatRequest)
    /// Clears every flag of a message or a member in a channel (``ServerState/dismissFlags(of:in:)``).
    case dismissFlags(channelId: String, FlagReport.Subject)
    /// Ends a device's connection, on whichever node holds it (``ServerCore/disconnect(_:now:)``).
    case disconnect(userId: String, deviceId: String)
    /// Bans a user from the whole service and ends every connection of theirs (`banned`), or
    /// lifts the ban (``ServerCore/setServiceBan(_:banned:now:)``).
    case banUser(userId: String, banned: Bool)
    /// Forgets a push token a provider said is gone (``ChatServer/removePushDevice(_:of:)``).
    case removePushDevice(userId: String, PushDevice)
}

/// What the node that wrote an entry gets back once it is applied.
enum ChangeOutcome: Sendable {
    case response(ResponseEnvelope)
    case connected(ConnectResult, linkId: UInt64)
    case user(User)
    case channel(Channel)
    case message(Message)
    case done
}
