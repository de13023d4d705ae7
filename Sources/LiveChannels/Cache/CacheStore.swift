import ChatAPI
import LiveCore
import Synchronization

/// The client's cache: every channel this user has seen, as this user sees it, and the live
/// handles that show them. One entity per channel, however many handles show it, so they are
/// always consistent.
///
/// Read from any thread. Mutated only by the ``SyncEngine`` (one at a time, in event order);
/// a mutation returns what to publish, and the engine publishes it outside the lock.
final class CacheStore: Sendable {
    struct State: Sendable {
        var channels: [String: Channel] = [:]
        /// The sources of live channel objects, by channel id; held weakly so that a handle
        /// nobody uses is freed.
        var channelObjects: [String: [WeakReference<LiveObjectSource<Channel>>]] = [:]
        /// Live channel lists, held weakly.
        var channelLists: [WeakReference<LiveChannelList>] = []
    }

    /// Guards every field of the cache.
    private let state = Mutex(State())

    /// The unread count of every channel the user is a member of, and their live total
    /// (`ChannelRepository.getTotalUnreadCount()`): O(1) per channel change, never re-summed.
    let unread = LiveTally<String, Int>(dataStatus: .local, loadingStatus: .loading)

    /// A cached channel.
    func channel(_ channelId: String) -> Channel? {
        state.withLock { $0.channels[channelId] }
    }

    /// Every cached channel.
    var channels: [Channel] {
        state.withLock { Array($0.channels.values) }
    }

    // MARK: Registration (any thread)

    /// Starts showing channel `channelId` in `source`; returns the cached value to show first.
    /// Atomic with respect to cache mutations, so the source misses no update.
    func register(_ source: LiveObjectSource<Channel>, for channelId: String) -> Channel? {
        state.withLock { state in
            state.channelObjects[channelId, default: []].removeAll { $0.object == nil }
            state.channelObjects[channelId, default: []].append(WeakReference(source))
            return state.channels[channelId]
        }
    }

    /// Starts keeping `list` current; returns every cached channel, to fill it from.
    func register(_ list: LiveChannelList) -> [Channel] {
        state.withLock { state in
            state.channelLists.removeAll { $0.object == nil }
            state.channelLists.append(WeakReference(list))
            return Array(state.channels.values)
        }
    }

    /// The live lists that still exist.
    var liveLists: [LiveChannelList] {
        state.withLock { $0.channelLists.compactMap(\.object) }
    }

    /// The ids of channels shown by live objects that still exist.
    var observedChannelIds: [String] {
        state.withLock { state in
            state.channelObjects.compactMap { id, sources in sources.contains { $0.object != nil } ? id : nil }
        }
    }

    // MARK: Mutation (sync engine only)

    /// What to publish after a mutation.
    struct Publication: Sendable {
        /// Each live object source with the channel value to show.
        var objects: [(LiveObjectSource<Channel>, Channel)] = []
        /// The channels that changed, for the live lists.
        var changed: [Channel] = []
        /// The live lists to update.
        var lists: [LiveChannelList] = []
        /// New unread contributions of changed channels (`nil`: not a member).
        var unread: [(String, Int?)] = []

        var isEmpty: Bool { changed.isEmpty }
    }

    /// Stores channels; returns what changed and who shows it.
    func upsert(_ channels: [Channel]) -> Publication {
        state.withLock { state in
            var publication = Publication()
            for channel in channels where state.channels[channel.channelId] != channel {
                let before = state.channels.updateValue(channel, forKey: channel.channelId)
                publication.changed.append(channel)
                let contribution = Self.unreadContribution(of: channel)
                if before.flatMap(Self.unreadContribution) != contribution {
                    publication.unread.append((channel.channelId, contribution))
                }
                for source in state.channelObjects[channel.channelId] ?? [] {
                    if let object = source.object { publication.objects.append((object, channel)) }
                }
            }
            if !publication.changed.isEmpty {
                publication.lists = state.channelLists.compactMap(\.object)
            }
            return publication
        }
    }

    /// What a channel adds to the total unread count: its unread count while the user is a
    /// member of it (and it is not deleted), nothing otherwise.
    static func unreadContribution(of channel: Channel) -> Int? {
        channel.currentUserMembership == .member && !channel.isDeleted ? channel.unreadCount : nil
    }
}
