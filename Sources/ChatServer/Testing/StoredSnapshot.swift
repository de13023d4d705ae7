import ChatAPI

/// What a restart must bring back: the stored part of a server's state (no presence, typing,
/// reading or replay logs), comparable across two servers — for tests of storage, in this
/// package and in the `Server/` package (SPI `Testing`: `@_spi(Testing) import ChatServer`).
/// Two snapshots are equal when a restart brought everything back; the fields are internal.
@_spi(Testing) public struct StoredSnapshot: Equatable, Sendable {
    var users: [String: User]
    var channels: [String: Channel]
    var members: [String: [String: MemberRecord]]
    var extras: [String: ChannelExtras]
    var messages: [String: [Message]]
    var conversations: [String: String]
    var memberships: [String: Set<String>]
    var channelsByType: [ChannelType: Set<String>]
    var channelsByTag: [String: Set<String>]
    var messageLocations: [String: ServerState.MessageLocation]
    var timedChannels: Set<String>
    var counters: StoredCounters

    /// The stored part of `server`'s state now.
    public init(_ server: ChatServer) {
        let state = server.engine.currentState
        users = state.users.entries.mapValues { user in
            var user = user
            user.isOnline = false
            return user
        }
        channels = state.channels.entries.mapValues(\.info)
        members = state.channels.entries.mapValues(\.members.entries)
        extras = state.channels.entries.mapValues { ChannelExtras(of: $0) }
        messages = state.channels.entries.mapValues(\.messages.elements)
        conversations = state.conversations
        memberships = state.memberships.filter { !$0.value.isEmpty }
        channelsByType = state.channelsByType
        channelsByTag = state.channelsByTag
        messageLocations = state.messageLocations
        timedChannels = state.timedChannels
        counters = state.counters
    }
}
