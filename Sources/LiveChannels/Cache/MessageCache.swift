import ChatAPI
import LiveCore
import Synchronization

/// The client's cache of messages and the live handles that show them: the live message lists
/// by channel (each keeps its own window of messages), the typing indicators, and the log of
/// recent message events that keeps responses from overwriting newer data.
///
/// Mutated only by the SyncEngine (inside its actor: event application, and response
/// application through `SyncEngine.performApplying(_:recordedBy:_:)`), read from any thread.
final class MessageCache: RecentEventRecording, Sendable {
    /// Who is typing where.
    let typing = TypingCache()

    private struct State: Sendable {
        /// Live message lists by channel id, held weakly.
        var lists: [String: [WeakReference<LiveMessageList>]] = [:]
        var recent = RecentEvents<Message>()
    }

    /// Guards the registry and the recent-event log.
    private let state = Mutex(State())

    /// Applies one server event (already de-duplicated and in order) and publishes the result.
    func apply(_ event: ChatEvent) {
        typing.apply(event)
        let message: Message? =
            switch event {
            case .messageNew(let message, _), .messageUpdated(let message), .messageDeleted(let message): message
            default: nil
            }
        let lists = state.withLock { state -> [LiveMessageList] in
            state.recent.record(message.map { [$0] } ?? [])
            guard let message else { return [] }
            return state.lists[message.channelId]?.compactMap(\.object) ?? []
        }
        if let message {
            for list in lists { list.apply([message]) }
        }
    }

    /// Applies messages a response returned (a sent or changed message) to the lists showing
    /// their channels. Sync engine only.
    func applyResponse(_ messages: [Message]) {
        let byChannel = Dictionary(grouping: messages, by: \.channelId)
        let lists = state.withLock { state in
            byChannel.keys.flatMap { state.lists[$0]?.compactMap(\.object) ?? [] }
        }
        for list in lists { list.apply(byChannel[list.channelId] ?? []) }
    }

    // MARK: Registration (any thread)

    /// Starts keeping `list` current.
    func register(_ list: LiveMessageList) {
        state.withLock { state in
            state.lists[list.channelId, default: []].removeAll { $0.object == nil }
            state.lists[list.channelId, default: []].append(WeakReference(list))
        }
    }

    /// The live message lists that still exist.
    var liveLists: [LiveMessageList] {
        state.withLock { $0.lists.values.flatMap { $0.compactMap(\.object) } }
    }

    // MARK: RecentEventRecording

    func beginResponse() -> Int {
        state.withLock { $0.recent.begin() }
    }

    func endResponse(_ id: Int, newerEvents: Int) -> [Message] {
        state.withLock { $0.recent.end(id, newerEvents: newerEvents) }
    }
}
