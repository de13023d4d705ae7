import ChatAPI
import Foundation

extension ServerState {
    /// Sends a message: it gets the channel's next sequence number; the sender's read marker,
    /// and that of every member reading the channel on some device, moves to it; mentioned
    /// members get their mention flag; the sender stops typing.
    ///
    /// Mentions: every mentioned id must be a well-formed id (`invalidArgument(field:
    /// "mentionedUserIds")` otherwise); mentions of users who are not members of the channel —
    /// users nobody registered among them — are dropped silently (as Stream and Amity do): the
    /// stored message mentions members only, so nobody outside the channel is flagged, and a
    /// member who left while the message was written, or a name typed for someone who never
    /// connected, does not make the send fail.
    ///
    /// - Throws: `invalidArgument` (`channelId`, `text`, `mentionedUserIds`, `metadata`);
    ///   `limitExceeded` (metadata over 100 KB); `notFound`; `notAllowed` (deleted); `forbidden` (not a member, broadcast
    ///   and not an admin, muted member or channel); `rateLimited(retryAfter:)`.
    /// The channel's content filters (``ModerationSettings``) apply: a blocked word refuses the
    /// message or is masked, a link outside the allowed domains refuses it.
    ///
    /// A draft with a ``MessageDraft/messageId`` the sender chose is sent once: a repeat from the
    /// same user into the same channel answers the stored message and changes nothing (no
    /// sequence, event, unread or read marker moves); the id taken by another user's message or
    /// by one in another channel is `alreadyExists`; an id outside ``MessageIdRules`` is
    /// `invalidArgument(field: "messageId")`. The rule is part of the state, so it holds
    /// wherever the state does: after a restart from storage, and on every node of a cluster
    /// (two nodes asked at once apply the two sends in log order: the second answers the
    /// first's message). A repeat is recognised while the server keeps the message in memory
    /// (the channel's newest ``ServerConfiguration/messagesPerChannel``, 10,000 by default).
    ///
    /// - Complexity: O(mentions + readers + text × blocked words).
    mutating func sendMessage(_ draft: MessageDraft, by userId: String, now: Date) throws(ChatError) -> Message {
        try checkDraft(draft)
        let channelId = draft.channelId
        if let chosen = draft.messageId {
            try MessageIdRules.validate(chosen)
            if let stored = try storedMessage(chosen, sentBy: userId, in: channelId) { return stored }
        }
        let channel = try authorizedRecord(channelId, .sendMessage, by: .user(userId), now: now)
        var sends: [Date] = []
        if !isAdmin(userId), !channel.isModerator(userId), let limit = channel.activeRateLimit(at: now) {
            sends = channel.recentSends[userId, default: []].filter { $0 > now - limit.window }
            if let retryAfter = limit.retryAfter(sends: sends, now: now) {
                throw .rateLimited(retryAfter: retryAfter)
            }
            sends.append(now)
        }
        let readers: [String]
        if channel.readers.isEmpty {
            readers = channel.isMember(userId) ? [userId] : []
        } else {
            var readerSet = Set(channel.readers.keys)
            if channel.isMember(userId) { readerSet.insert(userId) }
            readers = readerSet.sorted()
        }
        let sequence = channel.info.lastSequence + 1
        let mentions = Self.uniqueSorted(draft.mentionedUserIds.filter(channel.isMember))
        let text = try Self.filtered(draft.text, by: channel.moderationSettings)
        // The checks read a copy of the record; it must be gone before the record changes, or
        // the change would copy the member table and the message list (copy-on-write).
        _ = consume channel

        let message = Message(
            messageId: draft.messageId ?? makeMessageId(), channelId: channelId, sequence: sequence,
            userId: userId, text: text, mentionedUserIds: mentions,
            metadata: draft.metadata, createdAt: now)
        forgetOldestMessageIfFull(in: channelId)
        messageLocations[message.messageId] = MessageLocation(channelId: channelId, sequence: sequence)
        channels[channelId]!.messages.append(at: now) { _ in message }
        if !sends.isEmpty { channels[channelId]!.recentSends[userId] = sends }
        messagesSent += 1
        modifyChannel(channelId) { info in
            info.lastSequence = sequence
            info.messageCount += 1
            info.lastMessageAt = now
            info.lastActivity = now
        }
        flagMentions(message)
        emit(.messageNew(channelId: channelId, sequence: sequence), to: .channelMembers(channelId))
        emit(.channelUpdated(channelId: channelId), to: .channelOutsiders(channelId))
        for reader in readers {
            // The sender's own marker needs no event for the others: `messageNew` implies it.
            moveReadMarker(of: reader, in: channelId, to: sequence, tellingMembers: reader != userId)
        }
        endTyping(userId: userId, in: channelId)
        return channels[channelId]!.messages[sequence: sequence]!
    }

    /// Replaces a message's text, mentions and metadata with the draft's. Mentions follow the
    /// rules of ``sendMessage(_:by:now:)``: non-members (unknown users among them) are dropped.
    ///
    /// - Throws: `notFound` (message, or not in `draft.channelId`); `notAllowed` (deleted
    ///   message or channel); `forbidden` (not the sender nor a moderator); `invalidArgument`;
    ///   `limitExceeded`.
    @discardableResult
    mutating func editMessage(_ messageId: String, _ draft: MessageDraft, by caller: Caller, now: Date)
        throws(ChatError) -> Message
    {
        try checkDraft(draft)
        let location = try authorizeMessageChange(
            messageId, in: draft.channelId, other: .editAnyMessage, by: caller, now: now)
        let mentions = Self.uniqueSorted(draft.mentionedUserIds.filter(channels[location.channelId]!.isMember))
        let text = try Self.filtered(draft.text, by: channels[location.channelId]!.moderationSettings)
        let edited = updateMessage(at: location) { message in
            message.text = text
            message.mentionedUserIds = mentions
            message.metadata = draft.metadata
            message.editedAt = now
        }
        flagMentions(edited)
        emit(
            .messageUpdated(channelId: location.channelId, sequence: location.sequence),
            to: .channelMembers(location.channelId))
        return channels[location.channelId]!.messages[sequence: location.sequence]!
    }

    /// Deletes a message: it keeps its sequence number (unread counts do not change) and loses
    /// its text, mentions and metadata.
    ///
    /// - Throws: as ``editMessage(_:_:by:now:)``.
    @discardableResult
    mutating func deleteMessage(_ messageId: String, in channelId: String, by caller: Caller, now: Date)
        throws(ChatError) -> Message
    {
        try InputCheck.id(channelId, field: "channelId")
        let location = try authorizeMessageChange(
            messageId, in: channelId, other: .deleteAnyMessage, by: caller, now: now)
        _ = updateMessage(at: location) { message in
            message.isDeleted = true
            message.text = ""
            message.mentionedUserIds = []
            message.metadata = [:]
            message.editedAt = now
        }
        emit(
            .messageDeleted(channelId: location.channelId, sequence: location.sequence),
            to: .channelMembers(location.channelId))
        return channels[location.channelId]!.messages[sequence: location.sequence]!
    }

    /// Members may read a channel's messages (and admins and the console), also once it was deleted.
    /// Pages cover the kept messages only (``ServerConfiguration/messagesPerChannel``):
    /// `hasPrevious` is false at the oldest kept message.
    ///
    /// With archived history (a server on storage, ``hasArchivedHistory``) history is
    /// unlimited: paging reaches message 1, and a page reaching below the kept messages needs
    /// them from the store. This method never reads the store: it answers
    /// ``MessagePagePlan/needsHistory(channelId:sequences:)`` for what `history` (the messages
    /// read so far, by the caller, outside the server's lock) does not cover, and the caller
    /// asks again with them.
    ///
    /// - Throws: `invalidArgument` for an invalid query; `notFound`, `notAllowed`, `forbidden`
    ///   as for ``ServerAction/read``.
    /// - Complexity: O(page size + log kept).
    func planMessagePage(
        _ query: MessagePageQuery, by caller: Caller, now: Date, history: ArchivedHistory? = nil
    ) throws(ChatError) -> MessagePagePlan {
        try Self.validated { try query.validate() }
        let channel = try authorizedRecord(query.channelId, .read, by: caller, now: now)
        let kept = channel.messages.firstSequence
        let oldest = hasArchivedHistory ? 1 : kept
        guard let range = query.sequenceRange(lastSequence: channel.info.lastSequence, oldestSequence: oldest) else {
            return .answered(MessagePage(messages: [], hasPrevious: false, hasNext: false))
        }
        var messages: [Message] = []
        if hasArchivedHistory, range.lowerBound < kept {
            let needed = range.lowerBound...min(range.upperBound, kept - 1)
            guard let history, history.channelId == channel.id, history.sequences.contains(needed.lowerBound),
                history.sequences.contains(needed.upperBound)
            else {
                return .needsHistory(channelId: channel.id, sequences: needed)
            }
            messages = history.messages.filter { needed.contains($0.sequence) }
        }
        messages += channel.messages.elements(in: range)
        return .answered(
            MessagePage(
                messages: messages, hasPrevious: range.lowerBound > oldest,
                hasNext: range.upperBound < channel.info.lastSequence))
    }

    /// The page ``planMessagePage(_:by:now:history:)`` answers without reading the store.
    ///
    /// - Throws: as it; `unavailable` when the page needs stored history (the engine reads it
    ///   outside the lock and asks the plan again).
    func messages(_ query: MessagePageQuery, by caller: Caller, now: Date) throws(ChatError) -> MessagePage {
        switch try planMessagePage(query, by: caller, now: now) {
        case .answered(let page):
            return page
        case .needsHistory:
            throw .unavailable("this page needs history the server reads from its store")
        }
    }

    /// Messages of a channel read from the store, outside the server's lock.
    struct ArchivedHistory: Sendable {
        var channelId: String
        /// The sequence numbers asked for: `messages` are every stored one among them.
        var sequences: ClosedRange<Int>
        var messages: [Message]
    }

    /// What ``planMessagePage(_:by:now:history:)`` needs or gives.
    enum MessagePagePlan: Sendable {
        case answered(MessagePage)
        /// The page needs the stored messages of `channelId` numbered `sequences`.
        case needsHistory(channelId: String, sequences: ClosedRange<Int>)
    }

    /// The message a repeated send with the chosen id `messageId` answers: the stored one when
    /// `userId` sent it into `channelId`, `nil` when no kept message has the id.
    /// - Throws: `alreadyExists` when another user's message, or one in another channel, has it.
    private func storedMessage(_ messageId: String, sentBy userId: String, in channelId: String) throws(ChatError)
        -> Message?
    {
        guard let location = messageLocations[messageId] else { return nil }
        guard location.channelId == channelId,
            let stored = channels[channelId]?.messages[sequence: location.sequence], stored.userId == userId
        else {
            throw .alreadyExists("message '\(messageId)'")
        }
        return stored
    }

    /// The next id the server makes (`message-N`), skipping any a sender chose already.
    private mutating func makeMessageId() -> String {
        while true {
            // Concatenated, not interpolated: two small strings make one, with no buffer.
            let id = "message-" + String(nextMessageNumber)
            nextMessageNumber += 1
            if messageLocations[id] == nil { return id }
        }
    }

    private func checkDraft(_ draft: MessageDraft) throws(ChatError) {
        try InputCheck.id(draft.channelId, field: "channelId")
        if draft.text.isEmpty { throw .invalidArgument(field: "text", reason: "must not be empty") }
        try InputCheck.messageText(draft.text)
        try InputCheck.ids(draft.mentionedUserIds, field: "mentionedUserIds")
        try InputCheck.metadata(draft.metadata)
        if let limit = configuration.maxMessageBytes {
            let size = draft.text.utf8.count + JSON.object(draft.metadata).encodedSize
            if size > limit {
                throw .limitExceeded("a message of \(size) bytes (text and metadata); the limit is \(limit)")
            }
        }
    }

    private mutating func flagMentions(_ message: Message) {
        for userId in message.mentionedUserIds where userId != message.userId {
            guard let member = channels[message.channelId]!.members[userId], member.mentionSequence < message.sequence
            else { continue }
            channels[message.channelId]!.members[userId]!.mentionSequence = message.sequence
        }
    }

    private mutating func updateMessage(at location: MessageLocation, _ body: (inout Message) -> Void) -> Message {
        channels[location.channelId]!.messages.modify(sequence: location.sequence) { message in
            body(&message)
            return message
        }!
    }

    /// Makes room for one more message in a channel that keeps as many as it may: forgets the
    /// oldest one's id and flags (the append that follows drops the message itself).
    private mutating func forgetOldestMessageIfFull(in channelId: String) {
        guard let (oldest, isFlagged) = Self.oldestIfFull(channels[channelId]!) else { return }
        messageLocations[oldest.messageId] = nil
        // Flags are moderation state the storage writes: cleared only when there are some.
        if isFlagged { channels[channelId]!.messageFlags[oldest.sequence] = nil }
    }

    /// The message the channel's next one pushes out, if it is full, and whether it is flagged.
    private static func oldestIfFull(_ record: borrowing ChannelRecord) -> (Message, Bool)? {
        guard record.messages.isFull, let oldest = record.messages.oldest else { return nil }
        return (oldest, record.messageFlags[oldest.sequence] != nil)
    }

    private static func uniqueSorted(_ ids: [String]) -> [String] { Array(Set(ids)).sorted() }

    /// The sender may change their own message while they can read the channel; anyone else
    /// needs `other` (moderators, admins).
    private func authorizeMessageChange(
        _ messageId: String, in channelId: String, other: ServerAction, by caller: Caller, now: Date
    ) throws(ChatError) -> MessageLocation {
        try InputCheck.id(messageId, field: "messageId")
        guard let location = messageLocations[messageId], location.channelId == channelId else {
            throw .notFound("message '\(messageId)' in channel '\(channelId)'")
        }
        let channel = try record(location.channelId)
        let message = channel.messages[sequence: location.sequence]!
        try authorize(caller.userId == message.userId ? .read : other, by: caller, in: channel, now: now)
        if message.isDeleted { throw .notAllowed("message '\(messageId)' was deleted") }
        return location
    }
}
