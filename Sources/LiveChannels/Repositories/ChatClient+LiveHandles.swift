import ChatAPI
import LiveCore

extension ChatClient {
    /// A live channel object for `channelId` that shows the cached channel at once (`.local`)
    /// and every later change; `request`, if given, is sent now and its answer applied (the
    /// handle reports a failure as its `error` and keeps its last good snapshot).
    func liveChannel(_ channelId: String, sending request: ChatRequest?) -> LiveObject<Channel> {
        let source = LiveObjectSource<Channel>(
            loadingStatus: request == nil ? .notLoading : .loading, owner: self)
        if let cached = store.register(source, for: channelId) {
            source.publish(snapshot: cached, dataStatus: .local)
        }
        if let request {
            Task { await self.complete(request, into: source, registered: true) }
        }
        return source.object
    }

    /// A live channel object whose channel id is known only once `request` (a creation) is
    /// answered.
    func liveChannel(creating request: ChatRequest) -> LiveObject<Channel> {
        let source = LiveObjectSource<Channel>(loadingStatus: .loading, owner: self)
        Task { await self.complete(request, into: source, registered: false) }
        return source.object
    }

    /// A live channel object that failed before anything was sent.
    func failedChannel(_ error: any Error) -> LiveObject<Channel> {
        let source = LiveObjectSource<Channel>(owner: self)
        source.publish(dataStatus: .error, loadingStatus: .error, error: error)
        return source.object
    }

    private func complete(_ request: ChatRequest, into source: LiveObjectSource<Channel>, registered: Bool) async {
        do {
            let channel = try await channel(answering: request)
            if !registered { _ = store.register(source, for: channel.channelId) }
            source.publish(snapshot: channel, dataStatus: .fresh, loadingStatus: .loaded)
        } catch {
            source.publish(dataStatus: source.snapshot == nil ? .error : nil, loadingStatus: .error, error: error)
        }
    }

    /// Sends a request answered with a channel, applies the answer to the cache (so every live
    /// handle shows it) and returns it.
    func channel(answering request: ChatRequest) async throws -> Channel {
        try await sync.perform(request) { engine, response in
            guard let channel = response.channelValue else {
                throw ChatError.unavailable("the server answered \(request) with something else")
            }
            engine.upsert([channel])
            return engine.store.channel(channel.channelId) ?? channel
        }
    }

    /// A live list of the channels matching `query`, loading its first page now.
    func liveChannelList(_ query: ChannelListQuery) -> LiveCollection<Channel> {
        do {
            try query.validate()
        } catch {
            return LiveCollection(failure: error)
        }
        let source = LiveCollectionSource<Channel>(dataStatus: .notExist, loadingStatus: .loading, hasNext: true)
        let list = LiveChannelList(client: self, query: query, source: source)
        source.setPager(list)
        let cached = store.register(list)
        let items = list.withState { state in
            state.prefill(from: cached)
            return state.items
        }
        if !items.isEmpty { source.publish(snapshots: items, dataStatus: .local) }
        list.loadNextPage()
        return source.collection
    }
}
