/// Where a message stands between the device and the server (Amity's `syncState`): local
/// only, never on the wire.
///
/// A message the server sent is always ``synced``. A message created on the device
/// (`MessageRepository.createMessage`) is ``syncing`` until the server stored it, then
/// ``synced`` in place; a try the server refused for a rule (not a member, banned, muted, bad
/// input) makes it ``failed(_:)`` until it is resent or discarded.
public enum MessageSyncState: Sendable, Hashable, Codable {
    /// Stored by the server: it has its `sequence`.
    case synced
    /// Kept on the device and being sent (or waiting for a connection to be sent): its
    /// `sequence` is 0.
    case syncing
    /// The server refused it; the error says why. It stays until resent or discarded.
    case failed(ChatError)

    /// Whether the message lives on the device only (``syncing`` or ``failed(_:)``).
    public var isLocal: Bool { self != .synced }
}
