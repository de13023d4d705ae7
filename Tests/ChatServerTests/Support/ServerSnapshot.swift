import ChatAPI
import Foundation

@testable import ChatServer

/// Everything a refused call must leave as it was: the whole domain state (users, channels with
/// members, bans, messages, reading, typing, mutes and rate limits, the indexes), the server's
/// revision (it moves with every change) and each device's event sequence (no event was sent).
struct ServerSnapshot: Equatable {
    struct ChannelSnapshot: Equatable {
        var info: Channel
        var members: [String: MemberRecord]
        var bans: [String: BanRecord]
        var messages: [Message]
        var typing: [String: Date]
        var readers: [String: Set<String>]
        var mutes: [String: Date]
        var timedMutes: Set<String>
        var mutedUntil: Date?
        var rateLimit: RateLimitPolicy?
        var recentSends: [String: [Date]]
    }

    var users: [String: User]
    var channels: [String: ChannelSnapshot]
    var conversations: [String: String]
    var memberships: [String: Set<String>]
    var channelsByType: [ChannelType: Set<String>]
    var channelsByTag: [String: Set<String>]
    var messageLocations: [String: ServerState.MessageLocation]
    var readingByDevice: [ServerState.DeviceKey: Set<String>]
    var revision: Int
    var pendingChanges: Int
    var eventSequences: [String: Int]

    /// The server's state now; `devices` are the (user, device) pairs whose event sequence counts.
    init(_ server: ChatServer, devices: [(String, String)] = []) {
        let state = server.engine.currentState
        users = state.users.entries
        channels = state.channels.entries.mapValues { record in
            ChannelSnapshot(
                info: record.info, members: record.members.entries, bans: record.bans,
                messages: record.messages.elements,
                typing: record.typing, readers: record.readers, mutes: record.mutes, timedMutes: record.timedMutes,
                mutedUntil: record.mutedUntil, rateLimit: record.rateLimit, recentSends: record.recentSends)
        }
        conversations = state.conversations
        memberships = state.memberships
        channelsByType = state.channelsByType
        channelsByTag = state.channelsByTag
        messageLocations = state.messageLocations
        readingByDevice = state.readingByDevice
        revision = state.revision
        pendingChanges = state.pendingEmissions.count
        eventSequences = Dictionary(
            uniqueKeysWithValues: devices.map {
                ("\($0.0)/\($0.1)", server.lastEventSequence(userId: $0.0, deviceId: $0.1))
            })
    }
}
