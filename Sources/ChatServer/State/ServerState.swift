import ChatAPI
import Foundation

/// The whole server state as one value: users, channels, members, messages, read state and the
/// indexes that keep lookups cheap. Every operation is a `mutating` method that validates all
/// of its input and permissions first and only then changes anything, so a thrown `ChatError`
/// leaves the state exactly as it was. Operations that change something append what changed to
/// ``pendingEmissions``; the server drains it into events after each operation.
///
/// Time is a parameter (`now`), never read here. The value has no locks and no threads: the
/// engine keeps it in its core, behind the engine's lock (`ServerEngine.core`, a `FairLock`);
/// tests drive it directly.
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
    /// Registered users. Writes are tracked for the storage (``takeStorageChanges()``).
    var users: ChangeTrackedDictionary<String, User> = [:]
    /// The users who are admins (``User/isAdmin``): the outsiders who see every channel, found
    /// without looking at every user. Kept by ``registerUser(id:displayName:isAdmin:now:)``, the
    /// one place that sets the flag, and by a restore.
    var adminIds: Set<String> = []
    /// Users banned from the whole service, with when: they cannot connect. Stored with the
    /// user's row (``StoredUser``), so a change marks the user changed.
    var serviceBans: [String: Date] = [:]
    /// Push tokens by ``PushRegistration/key``, and each user's: stored with the user's row.
    var pushDevices: [String: PushRegistration] = [:]
    var pushKeysByUser: [String: Set<String>] = [:]
    /// The channels whose push notifications each user turned off: stored with the user's row.
    var notificationsOff: [String: Set<String>] = [:]
    /// Every channel, deleted ones too. Writes are tracked for the storage.
    var channels: ChangeTrackedDictionary<String, ChannelRecord> = [:]
    /// Conversation channel ids by their sorted member set (``conversationKey(_:)``).
    var conversations: [String: String] = [:]
    /// The channels each user is a member of.
    var memberships: [String: Set<String>] = [:]
    /// Channel ids by type and by tag: indexes for queries (``candidateIds(for:viewer:)``).
    var channelsByType: [ChannelType: Set<String>] = [:]
    var channelsByTag: [String: Set<String>] = [:]
    /// Channel ids by top-level metadata key and scalar value (``MetadataIndexEntry``): the
    /// index for metadata equality filters.
    var channelsByMetadata: [MetadataIndexEntry: Set<String>] = [:]
    /// Channel ids in the order of each indexed sort key, for sorted queries
    /// (``walkedPage(_:after:by:among:budget:)``). Kept by ``createChannel(_:by:now:)`` and
    /// ``modifyChannel(_:_:)``, the only places that change a channel's sort fields.
    var sortIndexes = ChannelSortIndexes()
    /// The channels changed at recent revisions (for scans that release the lock).
    var channelChanges = ChannelChangeLog()
    /// Where each kept message is, by message id (a dropped message leaves it).
    var messageLocations: [String: MessageLocation] = [:]
    /// Channels where something expires with time (``ChannelRecord/hasDeadlines``), so expiry
    /// does not scan every channel.
    var timedChannels: Set<String> = []
    /// No deadline of ``timedChannels`` is earlier than this (a lower bound, made exact by each
    /// ``expireTimers(now:)`` that runs, lowered by ``noteDeadline(_:)``; `distantPast` until the
    /// first run, so restored deadlines are looked at): before it, nothing can be due, and
    /// ``expireTimers(now:)`` costs one comparison.
    var earliestDeadlineBound = Date.distantPast
    /// The earliest deadline set since the engine last took it (``takeNewDeadline()``): the
    /// engine wakes itself then, so what expires is told without other traffic.
    var newDeadline: Date?
    /// Who looked each user up (`getUser`, `searchUsers`) while connected: they are told of
    /// that user's presence too (``presenceAudience(of:)``). Keyed by the user looked up.
    var presenceWatchers: [String: Set<String>] = [:]
    /// The reverse of ``presenceWatchers``: whom each viewer looked up (dropped when the
    /// viewer's last device disconnects).
    var watchedUsers: [String: Set<String>] = [:]
    /// The channels each device is reading.
    var readingByDevice: [DeviceKey: Set<String>] = [:]
    /// The devices whose reading changed since ``takeReadingChanges()`` (a cluster stores what
    /// its connected devices read).
    var readingChanged: Set<DeviceKey> = []
    var nextChannelNumber = 1
    var nextMessageNumber = 1
    /// Messages sent since the service began (``StoredCounters/messagesSent``).
    var messagesSent = 0
    /// Changes not yet turned into events.
    var pendingEmissions: [Emission] = []
    /// The server-wide revision: it grows with every change, and each changed entity is stamped
    /// with it (``Versioned/version``), so versions order the values of one entity and order any
    /// value against a response's revision.
    private(set) var revision = 0

    init(configuration: ServerConfiguration = ServerConfiguration()) {
        self.configuration = configuration
    }

    /// Whether messages older than the kept ones are stored (a server on storage: history is
    /// unlimited, read outside the lock — see ``planMessagePage(_:by:now:history:)``); without
    /// storage they are gone.
    var hasArchivedHistory = false
    /// The messages changed since the storage last took the changes (``takeStorageChanges()``).
    var changedMessages: [MessageLocation] = []
    /// The counters as the storage last took them.
    var storedCounters = StoredCounters()

    /// The server-wide numbers that continue across restarts (the event ceiling is the hub's).
    var counters: StoredCounters {
        StoredCounters(
            revision: revision, nextChannelNumber: nextChannelNumber, nextMessageNumber: nextMessageNumber,
            messagesSent: messagesSent)
    }

    /// Continues the numbering of a restored state.
    mutating func restore(_ counters: StoredCounters) {
        revision = counters.revision
        nextChannelNumber = counters.nextChannelNumber
        nextMessageNumber = counters.nextMessageNumber
        messagesSent = counters.messagesSent
        storedCounters = counters
    }

    /// Records a change for the event hub and stamps what it changed with a new revision. The
    /// channel's revision covers every value rendered from it (the channel for every viewer, its
    /// members, its messages), so it moves with every change in the channel.
    mutating func emit(_ change: StateChange, to audience: Audience) {
        revision += 1
        var messageSequence: Int?
        switch change {
        case .messageNew(let channelId, let sequence), .messageUpdated(let channelId, let sequence),
            .messageDeleted(let channelId, let sequence):
            messageSequence = sequence
            changedMessages.append(MessageLocation(channelId: channelId, sequence: sequence))
        case .userUpdated(let userId), .presenceChanged(let userId):
            users[userId]?.version = revision
        default:
            break
        }
        if let channelId = change.channelId {
            // One access to the record stamps the channel and its message.
            Self.stamp(&channels[channelId], revision: revision, messageSequence: messageSequence)
            channelChanges.record(channelId, at: revision)
        }
        pendingEmissions.append(Emission(change: change, audience: audience))
    }

    /// Gives `record`'s channel, and its message numbered `messageSequence` if any, the version
    /// `revision`.
    private static func stamp(_ record: inout ChannelRecord?, revision: Int, messageSequence: Int?) {
        guard record != nil else { return }
        record!.info.version = revision
        if let messageSequence { record!.messages.modify(sequence: messageSequence) { $0.version = revision } }
    }

    /// A new revision for a change nobody is told about (a user's registration).
    mutating func nextRevision() -> Int {
        revision += 1
        return revision
    }

    /// Returns and clears the pending changes.
    mutating func drainEmissions() -> [Emission] {
        defer { pendingEmissions.removeAll(keepingCapacity: true) }
        return pendingEmissions
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
