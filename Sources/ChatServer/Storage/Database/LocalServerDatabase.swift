import ChatAPI

/// A ``ServerDatabase`` on this machine whose commit is a few system calls, not a round trip
/// (the SQLite file): the store's writer runs on the database's own thread and writes batch
/// after batch there, synchronously.
///
/// Why: a writer task hops to the database for each commit and back to Swift's cooperative pool
/// for the next, where it waits its turn behind every task the commit just woke; with 64
/// senders, the commits of the SQLite file then came a third fewer than from a thread of their
/// own. A remote database's commit is a round trip that dwarfs the hop, and its writer gathers
/// callers before each batch instead (``DatabaseServerStore``).
///
/// - Threading: ``writeNow(_:)`` is called only from the bodies given to ``onWriterThread(_:)``.
protocol LocalServerDatabase: ServerDatabase {
    /// Runs `body` on the database's own serial thread, after what was queued there before.
    func onWriterThread(_ body: @escaping @Sendable () -> Void)

    /// Writes `batch` in one transaction, on the calling thread, and returns once it is
    /// committed.
    ///
    /// - Throws: `unavailable` naming what failed; nothing of the batch is applied then.
    func writeNow(_ batch: ServerDatabaseBatch) throws(ChatError)
}
