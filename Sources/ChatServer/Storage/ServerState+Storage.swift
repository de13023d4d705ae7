import ChatAPI

extension ServerState {
    /// Returns the current values of everything changed since the last call (users, channels,
    /// moderation state, members, messages, counters) and forgets the changes. The engine calls
    /// it after every operation, under the server's lock; a server without a store discards
    /// the result.
    ///
    /// - Complexity: O(changed users + changed channels + changed members + changed messages),
    ///   plus O(moderation state) of a channel whose moderation state changed.
    mutating func takeStorageChanges() -> StorageChanges {
        var changes = StorageChanges()
        let changedUsers = users.takeChangedKeys()
        for userId in changedUsers {
            if let user = users[userId] {
                changes.users[userId] = StoredUser(
                    user: user, bannedAt: serviceBans[userId], pushDevices: pushRegistrations(of: userId),
                    notificationsOff: (notificationsOff[userId] ?? []).sorted())
            }
        }
        users.recycleChangedKeys(changedUsers)
        let changedChannels = channels.takeChangedKeys()
        for channelId in changedChannels {
            channels.modifyUntracked(channelId) { record in
                guard record != nil else { return }
                let extras = record!.extrasChanged ? ChannelExtras(of: record!) : nil
                record!.extrasChanged = false
                changes.channels[channelId] = StorageChanges.ChannelWrite(info: record!.info, extras: extras)
                // Not recycled: every channel would keep a set's storage for good (and one
                // member written, the common case, needs none).
                for userId in record!.members.takeChangedKeyList() {
                    changes.members[StorageChanges.MemberKey(channelId: channelId, userId: userId)] = .some(
                        record!.members[userId])
                }
            }
        }
        channels.recycleChangedKeys(changedChannels)
        for location in changedMessages {
            if let message = channels[location.channelId]?.messages[sequence: location.sequence] {
                changes.messages[
                    StorageChanges.MessageKey(channelId: location.channelId, sequence: location.sequence)] =
                    message
            }
        }
        changedMessages.removeAll(keepingCapacity: true)
        let now = counters
        if now != storedCounters {
            changes.counters = now
            changes.countersChanged = true
            storedCounters = now
        }
        return changes
    }

    /// Forgets the changes without building them (a server without storage).
    ///
    /// - Complexity: O(changed channels + changed members + changed messages).
    mutating func discardStorageChanges() {
        users.recycleChangedKeys(users.takeChangedKeys())
        let changedChannels = channels.takeChangedKeys()
        for channelId in changedChannels {
            channels.modifyUntracked(channelId) { record in
                guard record != nil else { return }
                record!.extrasChanged = false
                _ = record!.members.takeChangedKeyList()
            }
        }
        channels.recycleChangedKeys(changedChannels)
        changedMessages.removeAll(keepingCapacity: true)
    }

    /// The state a store loaded: users (all offline), channels with their members, moderation
    /// state and newest messages, the counters; the indexes are rebuilt.
    ///
    /// - Complexity: O(users + channels × log channels + members + messages loaded).
    init(configuration: ServerConfiguration, restoring stored: StoredState) {
        self.init(configuration: configuration)
        var users: [String: User] = [:]
        users.reserveCapacity(stored.users.count)
        for var entry in stored.users {
            entry.user.isOnline = false
            users[entry.user.userId] = entry.user
            let userId = entry.user.userId
            if entry.user.isAdmin { adminIds.insert(userId) }
            if let bannedAt = entry.bannedAt { serviceBans[userId] = bannedAt }
            for registration in entry.pushDevices {
                pushDevices[registration.key] = registration
                pushKeysByUser[userId, default: []].insert(registration.key)
            }
            if !entry.notificationsOff.isEmpty { notificationsOff[userId] = Set(entry.notificationsOff) }
        }
        self.users = ChangeTrackedDictionary(unchanged: users)
        var channels: [String: ChannelRecord] = [:]
        channels.reserveCapacity(stored.channels.count)
        sortIndexes = ChannelSortIndexes(stored.channels.map(\.info))
        for channel in stored.channels {
            var record = ChannelRecord(info: channel.info, messages: channel.messages)
            record.members = ChangeTrackedDictionary(
                unchanged: Dictionary(uniqueKeysWithValues: channel.members.map { ($0.userId, $0) }))
            record.rebuildMemberOrder()
            channel.extras?.apply(to: &record)
            let id = channel.info.channelId
            for userId in record.members.keys { memberships[userId, default: []].insert(id) }
            channelsByType[channel.info.type, default: []].insert(id)
            for tag in Set(channel.info.tags) { channelsByTag[tag, default: []].insert(id) }
            for entry in MetadataIndexEntry.entries(of: channel.info.metadata) {
                channelsByMetadata[entry, default: []].insert(id)
            }
            if channel.info.type == .conversation {
                conversations[Self.conversationKey(record.members.keys)] = id
            }
            record.messages.forEachElement { message in
                messageLocations[message.messageId] = MessageLocation(channelId: id, sequence: message.sequence)
            }
            if record.hasDeadlines { timedChannels.insert(id) }
            channels[id] = record
        }
        self.channels = ChangeTrackedDictionary(unchanged: channels)
        restore(stored.counters)
    }
}

extension ServerState {
    /// Puts the loaded messages in their channels (`messages.logs` in the order of `channelIds`).
    ///
    /// - Complexity: O(channels).
    mutating func attach(_ messages: StoredMessages, to channelIds: [String]) {
        for (index, channelId) in channelIds.enumerated() {
            channels.modifyUntracked(channelId) { $0!.messages = messages.logs[index] }
        }
        messageLocations = messages.locations
    }
}

/// The kept messages of every channel, as a store loads them beside ``StoredState``.
struct StoredMessages: Sendable {
    /// One log per channel, in the order the channels were given.
    var logs: [NumberedLog<Message>]
    /// Where each loaded message is, by message id.
    var locations: [String: ServerState.MessageLocation]
}

/// Everything a store keeps, as it loads it.
struct StoredState: Sendable {
    struct StoredChannel: Sendable {
        var info: Channel
        var extras: ChannelExtras?
        var members: [MemberRecord]
        /// The newest messages (at most ``ServerConfiguration/messagesPerChannel``), ending
        /// with the one numbered `info.lastSequence`: the log the channel keeps.
        var messages: NumberedLog<Message>
    }

    var users: [StoredUser] = []
    var channels: [StoredChannel] = []
    var counters = StoredCounters()
    /// On a cluster's database, the devices connected to its nodes.
    var connections: [ServerState.DeviceKey: ConnectionTable.Connection] = [:]
    /// On a cluster's database, the number of every device's newest event.
    var deviceEvents: [ServerState.DeviceKey: Int] = [:]
}
