/// A database that several servers share as one service: a ``ServerDatabase`` (the tables are
/// the state as of a position of the log, its *snapshot*) plus an append-only change log that
/// every node reads in order — the `Server/` package's PostgreSQL store.
///
/// The log is the truth: a node acknowledges a change once its entry is committed, and every
/// node applies every entry in position order to its state in memory, so every node computes
/// the same state. The entries are opaque bytes to the log.
///
/// Contract, for an implementation:
/// - Positions are 1, 2, 3 … without gaps, in commit order: an entry is never committed after
///   one with a higher position (hold a lock from numbering to commit, as a counter row does).
/// - ``append(_:node:snapshot:)`` commits the entries and, in the same transaction, the
///   snapshot `snapshot` returns (called once the transaction holds the log's lock, with the
///   position the stored snapshot is at); it records the snapshot's position so that
///   ``ServerDatabase/open()`` returns it as the counter `"logPosition"`, consistent with the
///   tables it returns.
/// - ``entries(after:limit:)`` reads committed entries in position order; ``head()`` is the
///   position of the newest committed entry (a node that has applied through it has seen every
///   change committed before the call: a read barrier).
/// - ``wakeUps()`` yields whenever another append may have committed (a notification); missing
///   one costs latency only, since nodes also poll.
/// - ``beat(node:silentFor:)`` records that `node` is alive and returns the nodes not heard of
///   for longer than `silentFor` seconds (by the database's clock); ``forget(node:)`` removes one.
///   Nodes beat three times within ``silentLimit`` and pass it as `silentFor`, so a live node is
///   named only when two beats in a row were lost or late.
public protocol ServerChangeLog: ServerDatabase {
    /// How long a node may be silent before the others count its devices offline, in seconds
    /// (default 15). Nodes beat every third of it.
    var silentLimit: Double { get }

    /// Appends `entries` (possibly none: a snapshot alone) written by `node`, in one transaction.
    ///
    /// - Returns: the position of the last entry (the log's head when `entries` is empty).
    @discardableResult
    func append(
        _ entries: [[UInt8]], node: String,
        snapshot: @escaping @Sendable (_ storedThrough: Int) throws -> ServerLogSnapshot?
    ) async throws -> Int

    /// Up to `limit` committed entries after `position`, in position order.
    func entries(after position: Int, limit: Int) async throws -> [ServerLogEntry]

    /// The position of the newest committed entry (0 for an empty log).
    func head() async throws -> Int

    /// Signals that the log may have grown; finishes when the log is closed.
    func wakeUps() -> AsyncStream<Void>

    /// Records that `node` is alive now; returns the other nodes silent for more than `silentFor`
    /// seconds.
    func beat(node: String, silentFor: Double) async throws -> [String]

    /// Forgets a node (its devices were counted offline).
    func forget(node: String) async throws
}

extension ServerChangeLog {
    public var silentLimit: Double { 15 }
}

/// One committed entry of a ``ServerChangeLog``.
public struct ServerLogEntry: Sendable, Hashable {
    public var position: Int
    public var bytes: [UInt8]
    public init(position: Int, bytes: [UInt8]) {
        self.position = position
        self.bytes = bytes
    }
}

/// The rows that bring a log's stored snapshot up to `through` (``ServerChangeLog``).
public struct ServerLogSnapshot: Sendable {
    public var batch: ServerDatabaseBatch
    /// The log position the tables are at once `batch` is written.
    public var through: Int
    public init(batch: ServerDatabaseBatch, through: Int) {
        self.batch = batch
        self.through = through
    }
}
