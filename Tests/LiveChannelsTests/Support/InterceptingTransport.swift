import ChatAPI
import LiveChannels

/// A transport that passes everything on to another one and lets a test step in at chosen
/// moments: before a request is sent (throwing fails it, as a dropped connection would), after
/// its response came, around a connect, and after the last queued event's number is read.
/// The hooks hold the test's own state; the transport holds none.
final class InterceptingTransport: ChatTransport, Sendable {
    /// Where a test steps in; each does nothing unless set.
    struct Hooks: Sendable {
        var beforeSend: @Sendable (ChatRequest) async throws -> Void = { _ in }
        var afterResponse: @Sendable (ChatRequest) async -> Void = { _ in }
        var beforeConnect: @Sendable () async -> Void = {}
        /// After the server attached the connection (its events flow), before `connect` returns.
        var afterConnect: @Sendable () async -> Void = {}
        var afterReadingLastQueuedEvent: @Sendable () async -> Void = {}
        /// Before the client's `disconnect()` (or `close()`) is passed on.
        var beforeDisconnect: @Sendable () async -> Void = {}
    }

    let inner: any ChatTransport
    private let hooks: Hooks

    init(_ inner: any ChatTransport, hooks: Hooks) {
        self.inner = inner
        self.hooks = hooks
    }

    var userId: String { inner.userId }
    var deviceId: String { inner.deviceId }
    var lastEventSequence: Int { inner.lastEventSequence }
    var events: AsyncStream<ConnectionEvent> { inner.events }

    func connect(resumingAfter sequence: Int?) async throws -> ConnectResult {
        await hooks.beforeConnect()
        let result = try await inner.connect(resumingAfter: sequence)
        await hooks.afterConnect()
        return result
    }

    func send(_ request: ChatRequest) async throws -> ResponseEnvelope {
        try await hooks.beforeSend(request)
        let envelope = try await inner.send(request)
        await hooks.afterResponse(request)
        return envelope
    }

    func lastQueuedEventSequence() async -> Int {
        let sequence = await inner.lastQueuedEventSequence()
        await hooks.afterReadingLastQueuedEvent()
        return sequence
    }

    func disconnect() async {
        await hooks.beforeDisconnect()
        await inner.disconnect()
    }
}
