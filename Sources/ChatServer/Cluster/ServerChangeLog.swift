import Foundation

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
/// - ``append(_:node:)`` commits the entries, and nothing else: it holds whatever orders the
///   positions only for them (a database may do it in a single round trip).
/// - ``writeSnapshot(node:_:)`` writes a node's snapshot in a transaction of its own, which
///   never holds the appends back: the rows `snapshot` returns (called once the transaction
///   holds the snapshot's lock, with the position the stored snapshot is at) and their position,
///   which ``ServerDatabase/open()`` returns as the counter `"logPosition"`, consistent with the
///   tables it returns. Two nodes' snapshots are written one after the other, the second from
///   where the first left the tables; the position only moves forward.
/// - ``entries(after:limit:)`` reads committed entries in position order; ``head()`` is the
///   position of the newest committed entry (a node that has applied through it has seen every
///   change committed before the call: a read barrier).
/// - ``wakeUps()`` yields whenever another append may have committed (a notification); missing
///   one costs latency only, since nodes also poll.
/// - ``beat(node:applied:silentFor:)`` records that `node` is alive and how far it has applied,
///   and returns the nodes not heard of for longer than `silentFor` seconds (by the database's
///   clock); ``forget(node:)`` removes one. Nodes beat three times within ``silentLimit`` and
///   pass it as `silentFor`, so a live node is named only when two beats in a row were lost or
///   late.
/// - The log is bounded: a beat removes the entries that every node heard of within `silentFor`
///   has applied and that the stored snapshot holds (a bounded number per beat, so that a beat
///   stays short), oldest first, and always keeps the newest entry: ``entries(after:limit:)``
///   then starts after a gap for a node that needs a removed one, and that node must load the
///   tables again (it restarts).
/// - ``lease(node:)`` gives one live process at a time a node id, and each run of it a new
///   incarnation: a lease must end with its holder (a database session's advisory lock does),
///   so that a crashed node's id can be taken again at once.
public protocol ServerChangeLog: ServerDatabase {
    /// How long a node may be silent before the others count its devices offline, in seconds
    /// (default 15). Nodes beat every third of it.
    var silentLimit: Double { get }

    /// Appends `entries` written by `node`, in one transaction.
    ///
    /// - Returns: the position of the last entry (the log's head when `entries` is empty).
    @discardableResult
    func append(_ entries: [[UInt8]], node: String) async throws -> Int

    /// Writes the snapshot rows that `snapshot` returns for the stored snapshot's position
    /// (`nil`, or rows through a position not above it: nothing is written), in a transaction
    /// of its own that holds no append back.
    func writeSnapshot(
        node: String, _ snapshot: @escaping @Sendable (_ storedThrough: Int) throws -> ServerLogSnapshot?
    ) async throws

    /// Up to `limit` committed entries after `position`, in position order.
    func entries(after position: Int, limit: Int) async throws -> [ServerLogEntry]

    /// The position of the newest committed entry (0 for an empty log).
    func head() async throws -> Int

    /// Signals that the log may have grown; finishes when the log is closed.
    func wakeUps() -> AsyncStream<Void>

    /// Records that `node` is alive now and has applied the entries through `applied`; removes
    /// entries nobody needs any more (see above); returns the nodes silent for more than
    /// `silentFor` seconds, the live ones, and how many entries the log keeps.
    ///
    /// - Throws: ``ServerNodeInUse`` when this process lost `node`'s lease.
    func beat(node: String, applied: Int, silentFor: Double) async throws -> ServerLogBeat

    /// Forgets a node (its devices were counted offline).
    func forget(node: String) async throws

    /// Takes `node`'s lease for this process, held until ``ServerDatabase/close()`` or until the
    /// process ends, and returns this run's incarnation of the node: greater than every earlier
    /// run's. Asking again for a lease this log holds returns the same incarnation. A lease lost
    /// while the process runs (its database session ended, and another process took the id)
    /// makes ``beat(node:applied:silentFor:)`` throw ``ServerNodeInUse``: the node then stops.
    ///
    /// - Throws: ``ServerNodeInUse`` when another live process holds the lease; the database's
    ///   error when it cannot be asked.
    func lease(node: String) async throws -> Int
}

extension ServerChangeLog {
    public var silentLimit: Double { 15 }
}

/// What a ``ServerChangeLog/beat(node:applied:silentFor:)`` answers.
public struct ServerLogBeat: Sendable, Hashable {
    /// The nodes not heard of for longer than the beat's `silentFor`, other than the beating one.
    public var silentNodes: [String]
    /// How many entries the log keeps (after what the beat removed).
    public var keptEntries: Int
    /// The nodes heard of within the beat's `silentFor`, the beating one among them, each with
    /// the position it had applied at its last beat: the cluster's live nodes (what the
    /// console's overview lists).
    public var liveNodes: [String: Int]

    public init(silentNodes: [String], keptEntries: Int, liveNodes: [String: Int] = [:]) {
        self.silentNodes = silentNodes
        self.keptEntries = keptEntries
        self.liveNodes = liveNodes
    }
}

/// One committed entry of a ``ServerChangeLog``.
public struct ServerLogEntry: Sendable, Hashable {
    public var position: Int
    public var bytes: [UInt8]
    /// When the log wrote it, by the log's own clock (the database's): the time every node applies
    /// it at, so that no node's clock moves the cluster's time. `nil` when the log does not say
    /// (an entry written before the log recorded it): the writer's time in the entry is used.
    public var writtenAt: Date?
    public init(position: Int, bytes: [UInt8], writtenAt: Date? = nil) {
        self.position = position
        self.bytes = bytes
        self.writtenAt = writtenAt
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
