import ChatAPI
import LiveCore
import Synchronization

/// The client's cache of users and the live handles that show them: every user this client has
/// seen (from responses and `userUpdated` events), the live user objects by id and the live user
/// searches. One entity per user, however many handles show it.
///
/// Mutated only by the SyncEngine (inside its actor: event application, and response
/// application through `SyncEngine.perform(_:applying:)`), read from any thread.
final class UserCache: Sendable {
    private struct State: Sendable {
        var users: [String: User] = [:]
        /// Sources of live user objects by user id, held weakly.
        var objects: [String: [WeakReference<LiveObjectSource<User>>]] = [:]
        /// Live user searches, held weakly.
        var searches: [WeakReference<LiveUserSearch>] = []
    }

    /// Guards every field of the cache.
    private let state = Mutex(State())

    /// Applies one server event (already de-duplicated and in order) and publishes the result.
    func apply(_ event: ChatEvent) {
        guard case .userUpdated(let user) = event else { return }
        upsert([user])
    }

    /// Stores users and publishes the changes to every live object and search showing them.
    /// Sync engine only.
    func upsert(_ users: [User]) {
        let (objects, searches, changed) = state.withLock { state in
            var objects: [(LiveObjectSource<User>, User)] = []
            var changed: [User] = []
            for user in users where state.users[user.userId] != user {
                state.users[user.userId] = user
                changed.append(user)
                for source in state.objects[user.userId] ?? [] {
                    if let object = source.object { objects.append((object, user)) }
                }
            }
            return (objects, changed.isEmpty ? [] : state.searches.compactMap(\.object), changed)
        }
        for (source, user) in objects { source.publish(snapshot: user, dataStatus: .fresh) }
        for search in searches { search.apply(changed) }
    }

    // MARK: Registration (any thread)

    /// A cached user.
    func user(_ userId: String) -> User? {
        state.withLock { $0.users[userId] }
    }

    /// Starts showing user `userId` in `source`; returns the cached value to show first.
    /// Atomic with respect to cache mutations, so the source misses no update.
    func register(_ source: LiveObjectSource<User>, for userId: String) -> User? {
        state.withLock { state in
            state.objects[userId, default: []].removeAll { $0.object == nil }
            state.objects[userId, default: []].append(WeakReference(source))
            return state.users[userId]
        }
    }

    /// Starts keeping `search` current.
    func register(_ search: LiveUserSearch) {
        state.withLock { state in
            state.searches.removeAll { $0.object == nil }
            state.searches.append(WeakReference(search))
        }
    }

    /// The live searches that still exist.
    var liveSearches: [LiveUserSearch] {
        state.withLock { $0.searches.compactMap(\.object) }
    }

    /// The ids of users shown by live objects that still exist.
    var observedUserIds: [String] {
        state.withLock { state in
            state.objects.compactMap { id, sources in sources.contains { $0.object != nil } ? id : nil }
        }
    }
}
