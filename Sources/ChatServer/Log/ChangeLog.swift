import ChatAPI
import Foundation

/// The one seam every change passes through on its way to the state, as a ``ChangeEntry``: a
/// client's request, a console call, a device connecting or its connection ending, time passing.
/// A single node is a log of one; a cluster is the same seam over a shared database. Both build
/// the same entries and apply them with the same code (``ServerCore/apply(_:at:time:isMine:)``);
/// an adopter decides only *when* an entry applies:
///
/// - ``LocalChangeLog``: inline, in the same hold of the engine's lock that admitted it (no
///   copy, no encoding, no task): a request costs what the rules cost. Its changes are handed to
///   the node's ``ServerStore``, if any, and the answer waits for their commit.
/// - ``ClusterReplica``: the entry is committed to the cluster's ``ServerChangeLog`` and every
///   node applies it when it reads it back, in log order (``ServerEngine/apply(_:)``); its
///   writer answers once it applied here. A read changes nothing, so it is not logged: it is
///   answered from this node's state once the node has applied every entry committed before
///   it (``awaitCommitted()``), which is what makes it see every change any node acknowledged
///   before.
///
/// Above the seam, written once for both: the checks (``ServerCore/checkCurrent(_:linkId:)``,
/// ``ServerCore/admit(_:from:linkId:now:)``, ``ServerCore/checkConnect(of:)``), what the engine
/// does per operation (``ServerEngine``), and what each entry does (``ServerCore/apply(_:at:time:isMine:)``).
protocol ChangeLog: AnyObject, Sendable {
    /// This node's name in the entries it writes and in the connections table.
    var nodeId: String { get }

    /// Where what this node could not do is reported (``ChatServer/reportDiagnostics(to:)``).
    var diagnostics: ServerDiagnostics { get }

    /// How a client's `request` is carried out on this log.
    func route(_ request: ChatRequest) -> RequestRoute

    /// Commits an entry of `kind` and returns its outcome once it applied on this node and its
    /// changes are stored. `admit` runs first, under the engine's lock, with the entry's `ref`
    /// and the time: the checks, and what the entry's writer prepares (a connection waiting for
    /// its attach); it throws to refuse the entry, which then is not logged.
    ///
    /// - Throws: what `admit` throws; the entry's error; `unavailable` when it could not be
    ///   logged, applied or stored in time.
    func commit(
        _ kind: ChangeEntry.Kind, on engine: ServerEngine,
        admit: (inout ServerCore, _ ref: UInt64, _ now: Date) throws(ChatError) -> Void
    ) async throws(ChatError) -> ChangeOutcome

    /// Under the engine's lock, before each operation: time has passed to `now`. The log of one
    /// expires its timers then (a tick applied inline); a cluster's node waits for a tick entry
    /// (see ``wakeUp(_:)``), so that every node expires them at the same position.
    func advance(_ core: inout ServerCore, to now: Date)

    /// The time the state is read at when the clock says `now`: `now` for the log of one; on a
    /// node of a cluster, the time of the last entry applied (every node answers alike at a
    /// position).
    func stateTime(of applied: AppliedLog, at now: Date) -> Date

    /// Under the engine's lock, as each hold ends: the entries the node owes the log
    /// (``AppliedLog/takeEntriesToLog()``). The log of one applies them there and returns none;
    /// a cluster's node returns them, to be ``post(_:time:)``ed once the lock is released.
    func settle(_ core: inout ServerCore, now: Date) -> [ChangeEntry.Kind]

    /// Logs entries nobody waits for (what ``settle(_:now:)`` returned), outside the lock.
    func post(_ kinds: [ChangeEntry.Kind], time: Date)

    /// A read barrier: returns once this node has applied every entry committed before the
    /// call. At once for the log of one.
    ///
    /// - Throws: `unavailable` when the log cannot be read.
    func awaitCommitted() async throws(ChatError)

    /// Run at the engine's deadlines (and on ``ChatServer/runHousekeeping()``): expires what is
    /// due, the way this log does (see ``advance(_:to:)``); returns when to run again.
    func wakeUp(_ engine: ServerEngine) -> Date?

    /// Writes what is owed and lets go of the storage, once the engine is closed.
    func close(_ engine: ServerEngine) async

    /// Stops at once, telling nobody (a node that dies: ``ServerEngine/halt()``).
    func halt()
}

/// How a client's request is carried out (``ChangeLog/route(_:)``).
enum RequestRoute: Sendable, Equatable {
    /// Applied in the hold of the engine's lock that admits it.
    case inline
    /// Answered from this node's state once it applied every entry committed before it (a
    /// read on a node of a cluster).
    case afterBarrier
    /// Committed as an entry (``ChangeLog/commit(_:on:admit:)``) and answered once it applied.
    case logged
}
