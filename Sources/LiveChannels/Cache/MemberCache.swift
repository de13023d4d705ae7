import ChatAPI
import LiveCore
import Synchronization

/// The client's cache of members and the live handles that show them: per channel, the latest
/// record of every member and banned user the client has seen (from events and responses), and
/// the live member lists of that channel.
///
/// A record whose membership is `.none` (a user who left, was removed or unbanned) is dropped:
/// it belongs to no member list. The records are kept current by member events, which the
/// server sends to a channel's members; a list shown to a non-member shows what its pages
/// returned, refreshed when pages load.
///
/// Mutated only by the SyncEngine (inside its actor: event application, and response
/// application through `SyncEngine.run(_:)`), read from any thread. Publishes outside its lock.
final class MemberCache: Sendable {
    private struct State: Sendable {
        /// Records by channel id, then user id.
        var members: [String: [String: ChannelMember]] = [:]
        /// Live member lists by channel id, held weakly.
        var lists: [String: [WeakReference<LiveMemberList>]] = [:]
    }

    /// Guards every field of the cache.
    private let state = Mutex(State())

    /// Applies one server event (already de-duplicated and in order) and publishes the result.
    func apply(_ event: ChatEvent) {
        switch event {
        case .memberAdded(let member, _), .memberRemoved(let member, _), .memberBanned(let member, _),
            .memberUnbanned(let member, _), .memberMuted(let member), .memberUnmuted(let member),
            .memberRoleChanged(let member), .readMarkerMoved(let member, _):
            upsert([member])
        case .channelCreated, .channelUpdated, .channelDeleted, .messageNew, .messageUpdated, .messageDeleted,
            .typingStarted, .typingStopped, .userUpdated:
            break
        }
    }

    // MARK: Reading (any thread)

    /// The cached records of a channel's members and banned users, in no particular order.
    func members(in channelId: String) -> [ChannelMember] {
        state.withLock { Array(($0.members[channelId] ?? [:]).values) }
    }

    /// The live member lists that still exist.
    var liveLists: [LiveMemberList] {
        state.withLock { $0.lists.values.flatMap { $0.compactMap(\.object) } }
    }

    // MARK: Registration (any thread)

    /// Starts keeping `list` current; returns the channel's cached records, to fill it from.
    /// Atomic with respect to cache mutations, so the list misses no update.
    func register(_ list: LiveMemberList, channelId: String) -> [ChannelMember] {
        state.withLock { state in
            state.lists[channelId, default: []].removeAll { $0.object == nil }
            state.lists[channelId, default: []].append(WeakReference(list))
            return Array((state.members[channelId] ?? [:]).values)
        }
    }

    // MARK: Mutation (sync engine only)

    /// Stores member records (a `.none` membership drops the record) and publishes the changes
    /// to the live lists of their channels.
    /// - Complexity: O(m) to store, plus O(log n + n) per changed record and list.
    func upsert(_ records: [ChannelMember]) {
        let publication = state.withLock { state -> [(LiveMemberList, [ChannelMember])] in
            var changedByChannel: [String: [ChannelMember]] = [:]
            for record in records {
                let current = state.members[record.channelId]?[record.userId]
                if record.membership == .none {
                    guard current != nil else { continue }
                    state.members[record.channelId]?[record.userId] = nil
                } else {
                    guard current != record else { continue }
                    state.members[record.channelId, default: [:]][record.userId] = record
                }
                changedByChannel[record.channelId, default: []].append(record)
            }
            return changedByChannel.flatMap { channelId, changed in
                (state.lists[channelId] ?? []).compactMap(\.object).map { ($0, changed) }
            }
        }
        for (list, changed) in publication { list.apply(changed) }
    }

    /// Forgets every record (before a resync reloads the lists: records removed while events
    /// were missed must not come back). Publishes nothing; the reload does.
    func removeAll() {
        state.withLock { $0.members.removeAll() }
    }
}
