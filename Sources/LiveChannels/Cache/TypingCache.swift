import ChatAPI
import LiveCore
import Locking

/// Who is typing in which channel, as told by `typingStarted`/`typingStopped` events, and the
/// live values that show it.
///
/// The server sends a `typingStopped` when an indicator expires, when the user sends a message and
/// when their last device disconnects, so following the events is enough. A client only knows
/// typing that started while it was connected; after a resync that could not replay missed
/// events everything is cleared.
///
/// Mutated only by the sync engine (through ``SyncEngine``'s event application); registration from any
/// thread.
final class TypingCache: Sendable {
    private struct Viewer: Sendable {
        var source: WeakReference<LiveObjectSource<Set<String>>>
        /// The user left out of what this source shows (the current user).
        var excluded: String
    }

    private struct State: Sendable {
        var typing: [String: Set<String>] = [:]
        var viewers: [String: [Viewer]] = [:]
    }

    /// Guards the typing sets and the registered sources. Lock order: a leaf (sources are
    /// published to after it is released; see `LockRank`).
    private let state = Lock(State(), rank: .leaf)

    /// Starts showing the users typing in `channelId`, except `excluded`, in `source`; returns
    /// the value to show first. Atomic with respect to events.
    func register(_ source: LiveObjectSource<Set<String>>, channelId: String, excluding excluded: String) -> Set<String>
    {
        state.withLock { state in
            state.viewers[channelId, default: []].removeAll { $0.source.object == nil }
            state.viewers[channelId, default: []].append(Viewer(source: WeakReference(source), excluded: excluded))
            return (state.typing[channelId] ?? []).subtracting([excluded])
        }
    }

    /// Applies a typing event; ignores every other event.
    func apply(_ event: ChatEvent) {
        let publication: [(LiveObjectSource<Set<String>>, Set<String>)] = state.withLock { state in
            let old: Set<String>
            let channelId: String
            switch event {
            case .typingStarted(let id, let userId):
                channelId = id
                old = state.typing[id] ?? []
                state.typing[id, default: []].insert(userId)
            case .typingStopped(let id, let userId):
                channelId = id
                old = state.typing[id] ?? []
                state.typing[id]?.remove(userId)
                if state.typing[id]?.isEmpty == true { state.typing[id] = nil }
            default:
                return []
            }
            return Self.changes(in: channelId, from: old, state: state)
        }
        for (source, users) in publication { source.publish(snapshot: users, dataStatus: .fresh) }
    }

    /// Forgets every typing indicator (after a resync, when missed stops cannot be replayed).
    func reset() {
        let publication: [(LiveObjectSource<Set<String>>, Set<String>)] = state.withLock { state in
            let old = state.typing
            state.typing = [:]
            return old.flatMap { channelId, users in Self.changes(in: channelId, from: users, state: state) }
        }
        for (source, users) in publication { source.publish(snapshot: users, dataStatus: .fresh) }
    }

    /// The sources of `channelId` whose shown set differs between `old` and the current typing.
    private static func changes(
        in channelId: String, from old: Set<String>, state: State
    ) -> [(LiveObjectSource<Set<String>>, Set<String>)] {
        let new = state.typing[channelId] ?? []
        return (state.viewers[channelId] ?? []).compactMap { viewer in
            guard let source = viewer.source.object else { return nil }
            let shown = new.subtracting([viewer.excluded])
            return shown == old.subtracting([viewer.excluded]) ? nil : (source, shown)
        }
    }
}
