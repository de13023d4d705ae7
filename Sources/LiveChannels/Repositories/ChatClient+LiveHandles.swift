import ChatAPI
import LiveCore

extension ChatClient {
    // MARK: Live objects

    /// A live object of the entity with cache key `key`: the cached value at once (`.local`),
    /// then `request`'s answer if a request is given (`.fresh`), then every later change. A
    /// failed request is reported as the object's `error` (it keeps its last good snapshot);
    /// after the next (re)connect or `synchronize()` the object loads again with `retry` — a
    /// read, never a repeated write: a join that failed is not made behind the user's back later
    /// (it could undo a leave made since), the object shows the channel as it is and keeps the
    /// join's error.
    func liveEntity<Entity: CachedEntity>(
        _ key: String, in cache: EntityCache<Entity>, sending request: ChatRequest?, retrying retry: ChatRequest?,
        value: @escaping @Sendable (ChatResponse) -> Entity?
    ) -> LiveObject<Entity> {
        let source = LiveObjectSource<Entity>(loadingStatus: request == nil ? .notLoading : .loading, owner: self)
        cache.register(source, for: key)
        if let request {
            // The load refers to the engine, not the client: a client freed meanwhile goes.
            let (sync, target) = (sync, WeakReference(source))
            Task { await sync.load(request, retrying: retry ?? request, into: target, in: cache, value: value) }
        }
        return source.object
    }

    /// Sends a request answered with an entity, stores the answer (so every live handle shows
    /// it) and returns the entity as cached (a newer cached version wins).
    /// - Throws: the server's `ChatError`; `.unavailable` for an answer of another kind.
    /// - Parameter then: runs on the sync engine with the entity as cached, before any later
    ///   event is applied (to publish it in order).
    func entity<Entity: CachedEntity>(
        answering request: ChatRequest, in cache: EntityCache<Entity>,
        value: @escaping @Sendable (ChatResponse) -> Entity?,
        then: (@Sendable (Entity) -> Void)? = nil
    ) async throws -> Entity {
        try await sync.entity(answering: request, in: cache, value: value, then: then)
    }

    // MARK: Channels

    /// A live channel object for `channelId`; `request` (`getChannel` or `joinChannel`), if
    /// given, is sent now.
    func liveChannel(_ channelId: String, sending request: ChatRequest?) -> LiveObject<Channel> {
        liveEntity(
            channelId, in: sync.channels, sending: request,
            retrying: request.map { _ in .getChannel(channelId: channelId) }, value: \.channelValue)
    }

    /// A live channel object whose channel id is known only once `request` (a creation) is
    /// answered. Not retried: a creation is not idempotent.
    func liveChannel(creating request: ChatRequest) -> LiveObject<Channel> {
        let source = LiveObjectSource<Channel>(loadingStatus: .loading, owner: self)
        let sync = sync
        Task {
            do {
                let channels = sync.channels
                _ = try await sync.entity(answering: request, in: channels, value: \.channelValue) { channel in
                    source.publish(snapshot: channel, dataStatus: .fresh, loadingStatus: .loaded)
                    channels.register(source, for: channel.channelId)
                }
            } catch {
                source.publish(dataStatus: .error, loadingStatus: .error, error: error)
            }
        }
        return source.object
    }

    /// A live channel object that failed before anything was sent.
    func failedChannel(_ error: any Error) -> LiveObject<Channel> {
        let source = LiveObjectSource<Channel>(owner: self)
        source.publish(dataStatus: .error, loadingStatus: .error, error: error)
        return source.object
    }

    /// Sends a request answered with a channel and returns it as cached.
    func channel(answering request: ChatRequest) async throws -> Channel {
        try await entity(answering: request, in: sync.channels, value: \.channelValue)
    }

    /// A live list of the channels matching `query`, loading its first page now.
    func liveChannelList(_ query: ChannelListQuery) -> LiveCollection<Channel> {
        LiveQuery.make(
            client: self, spec: ChannelListSpec(query: query), pageSize: query.pageSize, cache: sync.channels)
    }

    // MARK: Users and messages

    /// Sends a request answered with a user and returns it as cached.
    func user(answering request: ChatRequest) async throws -> User {
        let user = try await entity(answering: request, in: sync.users, value: \.userValue)
        if user.userId == currentUserId { sync.updateCurrentUser(user) }
        return user
    }

    /// Sends a request answered with a message and returns it as cached.
    func message(answering request: ChatRequest) async throws -> Message {
        try await entity(answering: request, in: sync.messages, value: \.messageValue)
    }
}
