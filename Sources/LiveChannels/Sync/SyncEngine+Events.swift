import ChatAPI
import LiveCore

/// Applying the server's events, in sequence order and exactly once, to the caches.
extension SyncEngine {
    /// How many events ``consume(_:didEnd:)`` applies in a row before letting other work on the
    /// engine run (responses waiting for their position, loads).
    static let eventsPerTurn = 256

    /// Applies `events` (the transport's stream) as they come, on the engine, until the stream
    /// finishes or the task is cancelled. The loop runs on the engine itself: an event already
    /// buffered behind the one being applied is taken and applied without a hop, so a burst of
    /// events costs one wake-up, not one per event. Each connection's end is applied after
    /// every event before it (``connectionEnded()``), then told to `didEnd`, on the engine.
    func consume(_ events: AsyncStream<ConnectionEvent>, didEnd: @Sendable (DisconnectReason) -> Void) async {
        var appliedInTurn = 0
        for await item in events {
            switch item {
            case .event(let envelope):
                handle(envelope)
                appliedInTurn += 1
                if appliedInTurn == Self.eventsPerTurn {
                    appliedInTurn = 0
                    await Task.yield()
                }
            case .disconnected(let reason):
                connectionEnded()
                didEnd(reason)
            }
        }
    }

    /// Applies one event envelope unless it is a duplicate.
    func handle(_ envelope: EventEnvelope) {
        guard envelope.sequence > appliedSequence else { return }
        appliedSequence = envelope.sequence
        newestAppliedSinceConnectionEnded = envelope.sequence
        store?.beginUnit()
        apply(envelope.event)
        store?.endUnit(sequence: storesSequence ? envelope.sequence : nil)
        runReadyWaiters()
    }

    /// Applies envelopes in order, as ``handle(_:)`` does one by one.
    func handle(_ envelopes: [EventEnvelope]) {
        for envelope in envelopes { handle(envelope) }
    }

    func apply(_ event: ChatEvent) {
        switch event {
        case .channelUpdated(let channel) where channel.currentUserMembership != .member:
            let memberCount = channels.entity(channel.channelId)?.memberCount
            channels.upsert([channel])
            if memberCount != channel.memberCount { refreshMemberLists(of: channel.channelId) }
        case .channelCreated(let channel), .channelUpdated(let channel), .channelDeleted(let channel):
            channels.upsert([channel])
        case .memberAdded(let member, let channel), .memberRemoved(let member, let channel),
            .memberBanned(let member, let channel), .memberUnbanned(let member, let channel),
            .readMarkerMoved(let member, let channel):
            channels.upsert([channel])
            members.upsert([member])
        case .memberMuted(let member), .memberUnmuted(let member), .memberRoleChanged(let member):
            members.upsert([member])
        case .messageNew(let message, let channel):
            channels.upsert([channel])
            messages.upsert([message])
            advanceReadMarker(ofSenderOf: message)
        case .messageUpdated(let message), .messageDeleted(let message):
            messages.upsert([message])
        case .typingStarted, .typingStopped:
            typing.apply(event)
        case .userUpdated(let user), .presenceChanged(let user):
            users.upsert([user])
            if user.userId == transport.userId { updateCurrentUser(user) }
            refreshProfile(user)
        }
    }

    /// A member's own message moves their read marker to it. The server tells only the sender's
    /// devices (`readMarkerMoved`); every other member's client infers it here, so a member
    /// list shows it without one more event per message and member.
    /// - Complexity: O(1) when the sender's member record is not cached or already there.
    func advanceReadMarker(ofSenderOf message: Message) {
        let key = ChannelMember.cacheKey(channelId: message.channelId, userId: message.userId)
        guard var member = members.entity(key), member.readSequence < message.sequence else { return }
        member.readSequence = message.sequence
        members.upsert([member])
    }

    /// Shows a changed user profile in the cached member records of that user (same version:
    /// only the embedded profile changes, which ``CachedEntity/merging(cached:)`` keeps).
    /// - Complexity: O(the user's cached member records).
    func refreshProfile(_ user: User) {
        let records = members.entities(inGroup: user.userId).compactMap { member -> ChannelMember? in
            guard member.user.map({ $0.version < user.version }) ?? true else {
                return nil
            }
            var updated = member
            updated.user = user
            return updated
        }
        members.upsert(records)
    }

    /// Reloads the member lists of a channel the user is not a member of: the server tells
    /// outsiders that the membership changed (the member count), not who joined or left.
    func refreshMemberLists(of channelId: String) {
        for list in members.observers where list.channelScope == channelId {
            Task { await list.reload(discarding: false) }
        }
    }
}
