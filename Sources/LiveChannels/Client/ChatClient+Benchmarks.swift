import ChatAPI

extension ChatClient {
    /// Applies events on the sync engine exactly as if the transport had delivered them (in
    /// order; duplicates and old sequences ignored), in one hop: for benchmarks that measure the
    /// client's own work per event without the transport's delivery (an `AsyncStream` and a
    /// task switch per event in the scripted transports).
    @_spi(Benchmarks) public func applyEvents(_ envelopes: [EventEnvelope]) async {
        await sync.handle(envelopes)
    }
}

extension ChatClient {
    /// A client keeping `messageRetention` messages in memory beyond what live handles show
    /// (`nil`: every message), for benchmarks that compare the two.
    @_spi(Benchmarks) public static func withMessageRetention(_ messageRetention: Int?, transport: any ChatTransport)
        -> ChatClient
    {
        ChatClient(transport: transport, messageRetention: messageRetention)
    }

    /// How many messages the client holds in memory.
    @_spi(Benchmarks) public var messagesInMemory: Int { sync.messages.count }
}
