import ChatAPI
import Foundation

/// The whole server state as one value: users, channels, members, messages, read state and the
/// indexes that keep lookups cheap. Every operation is a `mutating` method that validates all
/// of its input and permissions first and only then changes anything, so a thrown `ChatError`
/// leaves the state exactly as it was. Operations that change something append what changed to
/// ``outbox``; the server drains it into events after each operation.
///
/// Time is a parameter (`now`), never read here. The value has no locks and no threads: the
/// server keeps it behind one lock, tests drive it directly.
struct ServerState: Sendable {
    /// Where a message lives.
    struct MessageLocation: Sendable, Hashable {
        var channelId: String
        var sequence: Int
    }

    /// A device of a user.
    struct DeviceKey: Sendable, Hashable {
        var userId: String
        var deviceId: String
    }

    let configuration: ServerConfiguration
    var users: [String: User] = [:]
    var channels: [String: ChannelRecord] = [:]
    /// Conversation channel ids by their sorted member set (``conversationKey(_:)``).
    var conversations: [String: String] = [:]
    /// The channels each user is a member of.
    var memberships: [String: Set<String>] = [:]
    /// Channel ids by type and by tag: indexes for queries (``candidateIds(for:viewer:)``).
    var channelsByType: [ChannelType: Set<String>] = [:]
    var channelsByTag: [String: Set<String>] = [:]
    var messageLocations: [String: MessageLocation] = [:]
    /// Channels where something expires with time (``ChannelRecord/hasDeadlines``), so expiry
    /// does not scan every channel.
    var timedChannels: Set<String> = []
    /// The channels each device is reading.
    var readingByDevice: [DeviceKey: Set<String>] = [:]
    var nextChannelNumber = 1
    var nextMessageNumber = 1
    /// Changes not yet turned into events.
    var outbox: [Emission] = []

    init(configuration: ServerConfiguration = ServerConfiguration()) {
        self.configuration = configuration
    }

    mutating func emit(_ change: StateChange, to audience: Audience) {
        outbox.append(Emission(change: change, audience: audience))
    }

    /// Returns and clears the pending changes.
    mutating func drainOutbox() -> [Emission] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    // MARK: Lookups

    /// The channel with this id, whether or not anyone may see it.
    ///
    /// - Throws: `notFound` when there is none.
    func record(_ channelId: String) throws(ChatError) -> ChannelRecord {
        guard let record = channels[channelId] else { throw .notFound("channel '\(channelId)'") }
        return record
    }

    func isAdmin(_ userId: String) -> Bool { users[userId]?.isAdmin ?? false }

    /// - Throws: `invalidArgument(field:)` naming the first unknown user.
    func requireKnownUsers(_ userIds: [String], field: String) throws(ChatError) {
        for userId in userIds where users[userId] == nil {
            throw .invalidArgument(field: field, reason: "unknown user '\(userId)'")
        }
    }

    static func conversationKey(_ memberIds: some Sequence<String>) -> String {
        Set(memberIds).sorted().joined(separator: "\u{1F}")
    }
}
