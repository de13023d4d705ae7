import ChatAPI

/// A device's live connection: where its events go, and whom to tell at once when it ends.
struct ConnectionLink: Sendable {
    let id: UInt64
    /// Where its events go (the buffer behind its transport's `events`).
    let mailbox: EventMailbox
    /// Called (under the server's lock: it must not block) when the connection is ended by the
    /// server, with the reason also put at the end of its event stream. A network front uses it
    /// to close a connection whose reader is stuck behind a full socket (it would only see the
    /// `.disconnected` after every event before it).
    let interrupt: (@Sendable (DisconnectReason) -> Void)?
}
