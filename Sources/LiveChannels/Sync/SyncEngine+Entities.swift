import ChatAPI
import LiveCore

extension SyncEngine {
    /// Sends a request answered with an entity, stores the answer (so every live handle shows
    /// it) and returns the entity as cached (a newer cached version wins).
    /// - Throws: the server's `ChatError`; `.unavailable` for an answer of another kind.
    /// - Parameter then: runs on the engine with the entity as cached, before any later event is
    ///   applied (to publish it in order).
    nonisolated func entity<Entity: CachedEntity>(
        answering request: ChatRequest, in cache: EntityCache<Entity>,
        value: @escaping @Sendable (ChatResponse) -> Entity?,
        then: (@Sendable (Entity) -> Void)? = nil
    ) async throws -> Entity {
        try await perform(request) { _, envelope in
            let entity = try envelope.response.expected(value, answering: "\(request)")
            cache.upsert([entity])
            let cached = cache.entity(entity.cacheKey) ?? entity
            then?(cached)
            return cached
        }
    }

    /// Sends `request` and shows its answer in `target` (a live object's source, held weakly: a
    /// live object nobody holds, nor its client, is kept alive by its load); on failure, reports
    /// it and retries with `retry` once connected (see `ChatClient.liveEntity`).
    nonisolated func load<Entity: CachedEntity>(
        _ request: ChatRequest, retrying retry: ChatRequest, into target: WeakReference<LiveObjectSource<Entity>>,
        in cache: EntityCache<Entity>, value: @escaping @Sendable (ChatResponse) -> Entity?
    ) async {
        let connection = retries.connection
        // A channel the server says the user cannot see is no longer joined (see
        // `channelIsNotVisible`), unless a newer value than this one came meanwhile.
        let channelId = request.visibleChannelId
        let cachedVersion = channelId.flatMap { channels.entity($0)?.version }
        do {
            // Published on the engine, in order with events: an event applied after the answer
            // is never overwritten by it.
            _ = try await entity(answering: request, in: cache, value: value) { entity in
                target.object?.publish(snapshot: entity, dataStatus: .fresh, loadingStatus: .loaded)
            }
        } catch {
            if let channelId, case ChatError.notFound = error {
                await channelIsNotVisible(channelId, cachedVersion: cachedVersion)
            }
            guard let source = target.object else { return }
            source.publish(dataStatus: source.snapshot == nil ? .error : nil, loadingStatus: .error, error: error)
            retries.add(startedIn: connection) { [weak self] in
                guard let self, let source = target.object else { return }
                source.publish(loadingStatus: .loading)
                await self.load(retry, retrying: retry, into: target, in: cache, value: value)
            }
        }
    }
}

extension ChatRequest {
    /// The channel a `getChannel` or `joinChannel` request asks for: the server answers it
    /// `notFound` exactly when the user cannot see that channel.
    fileprivate var visibleChannelId: String? {
        switch self {
        case .getChannel(let channelId), .joinChannel(let channelId): channelId
        default: nil
        }
    }
}
