import ChatAPI
import Foundation

/// The seam between the engine and where its state lives. Two implementations:
/// ``DatabaseServerStore`` for a server on a ``ServerDatabase`` — the SQLite file
/// (``SQLiteServerDatabase``) or the `Server/` package's PostgreSQL — and ``ReplicaStore`` for a
/// node of a cluster (its changes are durable with their log entries). Nothing above it knows
/// which: the engine hands over ``StorageChanges`` and waits for tickets, and reads old messages
/// through ``MessageArchive``, outside its lock.
///
/// Contract:
/// - ``enqueue(_:)`` is called under the server's lock, in the order the changes were made;
///   it never blocks on the disk. Changes are written in that order, many batches per
///   transaction (group commit).
/// - ``waitUntilWritten(_:)`` returns once every batch up to the ticket is committed, or throws
///   the `ChatError` of the commit that failed (the batch is then retried with the next one:
///   it may be written later, but it was not acknowledged).
/// - After ``close()`` every queued batch is written (or failed), and the store is released.
protocol ServerStore: MessageArchive {
    /// The identity of the history the store holds (``ChatAPI/ConnectResult/epoch``): drawn
    /// when the store was created, the same at every later open.
    var epoch: String { get }

    /// Whether the last commit tried succeeded (`true` before any): `false` while the storage
    /// cannot be written (a database away, a full disk).
    var isHealthy: Bool { get }

    /// Queues `changes` for writing and returns the ticket that ``waitUntilWritten(_:)``
    /// waits for: the newest ticket when `changes` is empty (so a response waits for what it
    /// has seen to be written).
    func enqueue(_ changes: StorageChanges) -> Int

    /// Returns when the batches up to `ticket` are committed.
    ///
    /// - Throws: `ChatError.unavailable` naming the store and the cause when their commit
    ///   failed, or the store is closed before they were written.
    func waitUntilWritten(_ ticket: Int) async throws(ChatError)

    /// Writes what is queued and releases the store. Idempotent.
    func close() async
}

/// Where the messages a channel no longer keeps in memory are read from: asked outside the
/// engine's lock (a request re-enters the engine with what it read), so a slow read delays only
/// its own request.
protocol MessageArchive: AnyObject, Sendable {
    /// The stored messages of `channelId` numbered within `range`, in order (and those queued
    /// for writing, which are newer than what is stored).
    ///
    /// - Throws: `ChatError.unavailable` when the store cannot be read in time.
    func messages(channelId: String, in range: ClosedRange<Int>) async throws(ChatError) -> [Message]
}
