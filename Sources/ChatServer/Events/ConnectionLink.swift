import ChatAPI

/// A device's live connection: where its events go.
struct ConnectionLink: Sendable {
    let id: UInt64
    let continuation: AsyncStream<ConnectionEvent>.Continuation
}
