import ChatAPI
import LiveCore
import Synchronization

/// The client's cache of messages and the live handles that show them: the live message lists
/// by channel (each keeps its own window of messages) and the typing indicators.
///
/// Mutated only by the SyncEngine (inside its actor: event application, and response
/// application through `SyncEngine.perform(_:applying:)`), read from any thread.
final class MessageCache: Sendable {
    /// Who is typing where.
    let typing = TypingCache()

    private struct State: Sendable {
        /// Live message lists by channel id, held weakly.
        var lists: [String: [WeakReference<LiveMessageList>]] = [:]
    }

    /// Guards the registry of live lists.
    private let state = Mutex(State())

    /// Applies one server event (already de-duplicated and in order) and publishes the result.
    func apply(_ event: ChatEvent) {
        typing.apply(event)
        let message: Message? =
            switch event {
            case .messageNew(let message, _), .messageUpdated(let message), .messageDeleted(let message): message
            default: nil
            }
        guard let message else { return }
        let lists = state.withLock { $0.lists[message.channelId]?.compactMap(\.object) ?? [] }
        for list in lists { list.apply([message]) }
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
}
