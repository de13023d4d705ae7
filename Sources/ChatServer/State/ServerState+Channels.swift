import ChatAPI
import Foundation

extension ServerState {
    /// Creates a channel, or returns the existing conversation with the same member set (even
    /// when the draft names another id).
    ///
    /// Through a connection only community, live and conversation channels can be created; the
    /// console creates any type and registers unknown users it names. The creating user becomes
    /// a member, and a moderator of community and live channels.
    ///
    /// - Returns: the channel id, and whether a channel was created (`false`: an existing
    ///   conversation was returned).
    /// - Throws: `notAllowed` for a type clients cannot create; `alreadyExists` for an id in
    ///   use; `invalidArgument` for malformed fields, unknown users (connections only) or a
    ///   conversation without another user; `limitExceeded` for oversized metadata.
    /// - Complexity: O(members + tags + metadata size).
    mutating func createChannel(
        _ draft: ChannelDraft, by caller: Caller, now: Date
    ) throws(ChatError) -> (channelId: String, created: Bool) {
        if caller != .console, !draft.type.isCreatableByClients {
            throw .notAllowed(
                "\(draft.type.rawValue) channels can only be created from the console; clients create community, live and conversation channels"
            )
        }
        if let id = draft.channelId { try InputCheck.id(id, field: "channelId") }
        try InputCheck.displayName(draft.displayName)
        try InputCheck.tags(draft.tags)
        try InputCheck.metadata(draft.metadata)
        if let avatar = draft.avatarFileId { try InputCheck.id(avatar, field: "avatarFileId") }
        try InputCheck.ids(draft.userIds, field: "userIds")
        if caller != .console { try requireKnownUsers(draft.userIds, field: "userIds") }
        var memberIds = draft.userIds
        if let creator = caller.userId { memberIds.append(creator) }
        memberIds = Array(Set(memberIds)).sorted()
        if draft.type == .conversation {
            guard memberIds.count >= 2 else {
                throw .invalidArgument(field: "userIds", reason: "a conversation needs at least one other user")
            }
            if let existing = conversations[Self.conversationKey(memberIds)] {
                return (existing, false)
            }
        }
        if let id = draft.channelId, channels[id] != nil {
            throw .alreadyExists("channel '\(id)'")
        }

        let channelId = draft.channelId ?? generateChannelId()
        for userId in memberIds { ensureUser(userId, now: now) }
        var record = ChannelRecord(
            info: Channel(
                channelId: channelId, type: draft.type, isDistinct: draft.type == .conversation,
                metadata: draft.metadata, tags: draft.tags, displayName: draft.displayName,
                memberCount: memberIds.count, lastActivity: now, createdAt: now, updatedAt: now,
                avatarFileId: draft.avatarFileId, creatorId: caller.userId),
            messages: NumberedLog(capacity: configuration.messagesPerChannel))
        for userId in memberIds {
            record.insertMember(MemberRecord(userId: userId, joinedAt: now, readSequence: 0))
            memberships[userId, default: []].insert(channelId)
        }
        if let creator = caller.userId, draft.type == .community || draft.type == .live {
            record.members[creator]?.roles = [ChannelRole.moderator]
        }
        channels[channelId] = record
        sortIndexes.insert(record.info)
        channelsByType[draft.type, default: []].insert(channelId)
        indexTags(of: channelId, old: [], new: draft.tags)
        indexMetadata(of: channelId, old: [:], new: draft.metadata)
        if draft.type == .conversation {
            conversations[Self.conversationKey(memberIds)] = channelId
        }
        emit(.channelCreated(channelId: channelId), to: .channelViewers(channelId))
        return (channelId, true)
    }

    private mutating func generateChannelId() -> String {
        while channels["channel-\(nextChannelNumber)"] != nil { nextChannelNumber += 1 }
        defer { nextChannelNumber += 1 }
        return "channel-\(nextChannelNumber)"
    }

    /// The channel as `caller` sees it; never joins.
    ///
    /// - Throws: `notFound` when it does not exist or `caller` cannot see it.
    func getChannel(_ channelId: String, by caller: Caller, now: Date) throws(ChatError) -> Channel {
        let channel = try authorizedRecord(channelId, .view, by: caller, now: now)
        return render(channel, for: caller.userId)
    }

    /// Makes the user a member. Idempotent: joining a channel one is a member of changes nothing.
    /// A new member's read marker starts at the channel's last message.
    ///
    /// - Throws: `notFound`, `notAllowed` (conversation, deleted), `forbidden` (banned),
    ///   `limitExceeded` (300,000 members).
    mutating func joinChannel(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        let channel = try authorizedRecord(channelId, .join, by: .user(userId), now: now)
        if channel.isMember(userId) { return }
        try requireCapacity(channel, adding: 1)
        _ = consume channel
        addMember(userId, to: channelId, now: now)
    }

    /// Ends the user's membership (and their reading and typing there). Leaving a channel one
    /// is not a member of changes nothing.
    ///
    /// - Throws: `notFound`, `notAllowed` (conversation, deleted).
    mutating func leaveChannel(_ channelId: String, userId: String, now: Date) throws(ChatError) {
        guard try authorizedRecord(channelId, .leave, by: .user(userId), now: now).isMember(userId) else { return }
        removeMember(userId, from: channelId, now: now)
        emitMembershipChange(.memberRemoved(channelId: channelId, userId: userId), channelId: channelId, userId: userId)
    }

    /// Changes the channel's own fields; last writer wins. A `nil` field stays as it is.
    ///
    /// - Throws: `notFound`, `notAllowed` (deleted), `forbidden` (not a moderator),
    ///   `invalidArgument`, `limitExceeded` (metadata over 100 KB).
    @discardableResult
    mutating func updateChannel(_ changes: ChannelChanges, by caller: Caller, now: Date) throws(ChatError) -> Channel {
        try InputCheck.id(changes.channelId, field: "channelId")
        try InputCheck.displayName(changes.displayName)
        if let metadata = changes.metadata { try InputCheck.metadata(metadata) }
        if let tags = changes.tags { try InputCheck.tags(tags) }
        if let avatar = changes.avatarFileId { try InputCheck.id(avatar, field: "avatarFileId") }
        let channelId = changes.channelId
        let old = try authorizedRecord(channelId, .editChannel, by: caller, now: now).info
        if let tags = changes.tags { indexTags(of: channelId, old: old.tags, new: tags) }
        if let metadata = changes.metadata { indexMetadata(of: channelId, old: old.metadata, new: metadata) }
        modifyChannel(channelId) { info in
            if let displayName = changes.displayName { info.displayName = displayName }
            if let metadata = changes.metadata { info.metadata = metadata }
            if let tags = changes.tags { info.tags = tags }
            if let avatar = changes.avatarFileId { info.avatarFileId = avatar }
            info.updatedAt = now
        }
        emit(.channelUpdated(channelId: channelId), to: .channelViewers(channelId))
        return try getChannel(channelId, by: caller, now: now)
    }

    /// Marks the channel deleted (it stays queryable with `includeDeleted`); ends all reading
    /// and typing in it and marks it read for every member (nothing stays unread). A deleted
    /// conversation no longer counts for uniqueness.
    ///
    /// - Throws: `notFound`, `notAllowed` (already deleted), `forbidden` (not an admin).
    mutating func deleteChannel(_ channelId: String, by caller: Caller, now: Date) throws(ChatError) {
        let channel = try authorizedRecord(channelId, .deleteChannel, by: caller, now: now)
        let readers = Array(channel.readers.keys)
        let conversationKey = channel.type == .conversation ? Self.conversationKey(channel.members.keys) : nil
        _ = consume channel  // no copy may be alive while the record changes (copy-on-write)
        for userId in readers { stopAllReading(userId: userId, in: channelId) }
        if let conversationKey { conversations[conversationKey] = nil }
        modifyChannel(channelId) { info in
            info.isDeleted = true
            info.updatedAt = now
        }
        // Nothing stays unread in a deleted channel; the channelDeleted event carries it.
        let lastSequence = channels[channelId]!.info.lastSequence
        for userId in channels[channelId]!.members.keys {
            channels[channelId]!.members[userId]!.readSequence = lastSequence
        }
        channels[channelId]!.typing = [:]
        trackDeadlines(of: channelId)
        emit(.channelDeleted(channelId: channelId), to: .channelViewers(channelId))
    }

    // MARK: Shared steps

    mutating func indexTags(of channelId: String, old: [String], new: [String]) {
        for tag in Set(old).subtracting(new) {
            channelsByTag[tag]?.remove(channelId)
            if channelsByTag[tag]?.isEmpty == true { channelsByTag[tag] = nil }
        }
        for tag in Set(new).subtracting(old) { channelsByTag[tag, default: []].insert(channelId) }
    }

    /// Moves a channel in the metadata index from the entries of `old` to those of `new`.
    ///
    /// - Complexity: O(top-level keys and array elements of both).
    mutating func indexMetadata(of channelId: String, old: [String: JSON], new: [String: JSON]) {
        let before = MetadataIndexEntry.entries(of: old)
        let after = MetadataIndexEntry.entries(of: new)
        for entry in before.subtracting(after) {
            channelsByMetadata[entry]?.remove(channelId)
            if channelsByMetadata[entry]?.isEmpty == true { channelsByMetadata[entry] = nil }
        }
        for entry in after.subtracting(before) { channelsByMetadata[entry, default: []].insert(channelId) }
    }

    /// Changes a channel's stored fields and moves it in the sort indexes. Every change of a
    /// channel's `info` but its version goes through here.
    ///
    /// - Complexity: O(body) + ``ChannelSortIndexes/update(from:to:)``.
    mutating func modifyChannel(_ channelId: String, _ body: (inout Channel) -> Void) {
        let (old, new) = Self.change(&channels[channelId]!.info, body)
        sortIndexes.update(from: old, to: new)
    }

    /// Runs `body` on `info`; returns the value before and after (one access to the record).
    private static func change(_ info: inout Channel, _ body: (inout Channel) -> Void) -> (old: Channel, new: Channel) {
        let old = info
        body(&info)
        return (old, info)
    }

    /// - Throws: `limitExceeded` when `adding` more members would pass the limit.
    func requireCapacity(_ channel: ChannelRecord, adding count: Int) throws(ChatError) {
        if channel.members.count + count > InputLimits.maxMembers {
            throw .limitExceeded("channel '\(channel.id)' would have more than \(InputLimits.maxMembers) members")
        }
    }

    /// Adds a member (who must not be one) and emits `memberAdded` and `channelUpdated`.
    mutating func addMember(_ userId: String, to channelId: String, now: Date) {
        let lastSequence = channels[channelId]!.info.lastSequence
        channels[channelId]!.insertMember(MemberRecord(userId: userId, joinedAt: now, readSequence: lastSequence))
        memberships[userId, default: []].insert(channelId)
        modifyChannel(channelId) { info in
            info.memberCount += 1
            info.lastActivity = now
        }
        emitMembershipChange(.memberAdded(channelId: channelId, userId: userId), channelId: channelId, userId: userId)
    }

    /// Tells members and `userId` about a membership change (the events carry the channel),
    /// and every other user who can see the channel about its new summary.
    mutating func emitMembershipChange(_ change: StateChange, channelId: String, userId: String) {
        emit(change, to: .channelMembers(channelId, also: [userId]))
        emit(.channelUpdated(channelId: channelId), to: .channelOutsiders(channelId, except: [userId]))
    }

    /// Removes a member (who must be one), with their reading and typing, but not their mute
    /// nor their recent sends (moderation outlives membership). Emits nothing.
    mutating func removeMember(_ userId: String, from channelId: String, now: Date) {
        stopAllReading(userId: userId, in: channelId)
        endTyping(userId: userId, in: channelId)
        // The user's mute and rate-limit window stay: they belong to the (channel, user) pair.
        channels[channelId]!.removeMember(userId)
        memberships[userId]?.remove(channelId)
        modifyChannel(channelId) { info in
            info.memberCount -= 1
            info.lastActivity = now
        }
        trackDeadlines(of: channelId)
    }
}
