import ChatAPI

/// What the storage must write to catch up with the state: the current values of everything
/// an operation changed (not the operations), so that writing them again is harmless and two
/// batches merge by keeping the newer value of each key (``merge(_:)``).
///
/// Built under the server's lock by ``ServerState/takeStorageChanges()`` (values are copied,
/// which for the models is a reference count), encoded and written by the store's writer.
struct StorageChanges: Sendable {
    /// A member row to write, or to delete (`nil`: the user is no longer a member).
    struct MemberKey: Sendable, Hashable {
        var channelId: String
        var userId: String
    }

    struct MessageKey: Sendable, Hashable {
        var channelId: String
        var sequence: Int
    }

    /// A channel's own fields, and its moderation state when that changed.
    struct ChannelWrite: Sendable {
        var info: Channel
        var extras: ChannelExtras?
    }

    var users: [String: StoredUser] = [:]
    var channels: [String: ChannelWrite] = [:]
    var members: [MemberKey: MemberRecord?] = [:]
    var messages: [MessageKey: Message] = [:]
    /// On a node of a cluster: devices connected (or, `nil`, no longer connected).
    var connections: [ServerState.DeviceKey: ConnectionTable.Connection?] = [:]
    /// On a node of a cluster: devices' event counts that moved (``EventHub/takeNumberedDevices()``).
    var deviceEvents: [ServerState.DeviceKey: Int] = [:]
    var counters = StoredCounters()

    var isEmpty: Bool {
        users.isEmpty && channels.isEmpty && members.isEmpty && messages.isEmpty && connections.isEmpty
            && deviceEvents.isEmpty && !countersChanged
    }
    /// Whether ``counters`` must be written (set when they moved).
    var countersChanged = false

    /// Adds `newer`, a later batch: its values replace this one's for the same keys.
    ///
    /// - Complexity: O(size of `newer`).
    mutating func merge(_ newer: StorageChanges) {
        users.merge(newer.users) { _, new in new }
        for (id, write) in newer.channels {
            // A later write without extras keeps the earlier extras (they did not change since).
            let extras = write.extras ?? channels[id]?.extras
            channels[id] = ChannelWrite(info: write.info, extras: extras)
        }
        members.merge(newer.members) { _, new in new }
        messages.merge(newer.messages) { _, new in new }
        connections.merge(newer.connections) { _, new in new }
        deviceEvents.merge(newer.deviceEvents) { _, new in new }
        if newer.countersChanged {
            counters = newer.counters
            countersChanged = true
        }
    }
}

/// The server-wide numbers that must continue across restarts.
struct StoredCounters: Sendable, Hashable {
    var revision = 0
    var nextChannelNumber = 1
    var nextMessageNumber = 1
    /// Messages sent in the service since it began, whoever chose their ids (the overview's
    /// "Messages sent"). A store written before it was counted starts it at the messages the
    /// server numbered itself.
    var messagesSent = 0
    /// Above every event sequence number any device was given: a restarted server numbers each
    /// device's events after it, so a device resuming across the restart is told to resync
    /// (``EventHub``) instead of missing events silently.
    var eventSequenceCeiling = 0
    /// On a cluster's database: the change-log position the stored state is at (entries after it
    /// are applied at start). Written by the log, never by a batch.
    var logPosition = 0
}
