/// A lock's place in the package's lock order: a thread takes a lock only while every lock it
/// already holds has a lower rank. Every lock in `Sources` names its rank where it is declared
/// (`Lock(value, rank: .leaf)`), and in debug builds ``LockOrder`` checks each acquisition
/// against the ranks the thread holds. A lock made without a rank (tests' and benchmarks' own
/// bookkeeping) is ``unordered``: outside the order, neither checked nor recorded.
///
/// ## The lock order
///
/// The one place where the order is written down; each lock's declaration names its rank. Locks
/// are listed from the outermost (taken first) to the innermost; beside each, the locks taken
/// while it is held, found by reading every `withLock` body in `Sources`.
///
/// Client (`LiveChannels`, `LiveCore`):
/// 1. ``liveQuery``: `LiveQuery.shared`. Applying a page reads the cache: ``entityCache``.
/// 2. ``entityCache``: `EntityCache.state`. Registering a live object publishes the cached value
///    to it: ``liveValue``.
/// 3. ``derivedValue``: `ObservationCenter.storage` of a value computed from another (a
///    reduction, a tally; a center with an upstream). Its commits and its observer count read the
///    reduction's memory under the upstream collection's lock, ``liveValue``, or the tally's
///    parts, ``leaf``.
/// 4. ``liveValue``: `ObservationCenter.storage` of every other live value. Commits read a
///    snapshot's materialized array or `combineLatest`'s pair: ``leaf``.
/// 5. ``cacheFile``: `CacheStore.file`. A damaged file marks the pending batch
///    (`CacheStore.pending`, ``leaf``); writes count stored bytes (``atomicWord``).
///
/// Server (`ChatServer`):
/// 6. ``serverConnection``: `ServerConnection.linkId`. Connecting runs the engine:
///    ``serverCore``.
/// 7. ``serverCore``: `ServerEngine.core` (a ``FairLock``). Operations hand their changes to the
///    store (``storeWriter``) and read the clock (`ManualClock.state`, ``leaf``); old messages
///    are read outside it.
/// 8. ``storeWriter``: the stores' queues of changes (`DatabaseServerStore.state`, a cluster
///    node's `ReplicaStore.state` and `LogAppender.state`), before ``storeConnection`` (the two
///    are not nested today; this is the order the stores document).
/// 9. ``storeConnection``: `SQLiteServerDatabase.connection`.
///
/// Everywhere:
/// 10. ``leaf``: every other lock of `Sources`. Nothing is taken while one is held.
/// 11. ``eventMailbox``: `EventMailbox.state`, the buffer behind an embedded connection's
///     events. Posted to under ``serverCore``; its reader's cancellation takes it wherever the
///     task is cancelled (under a ``leaf``, say). Holds nothing.
/// 12. ``atomicWord``: the lock inside ``AtomicValue`` where it is not an atomic (Apple
///     platforms, `-D LOCKING_PTHREAD`). Taken under any lock; holds nothing.
///
/// Outside the order (``unordered``): `Observer.gate`, held while an observer's callback runs.
/// A callback may take any lock (another observer's gate too, to end that observation), so the
/// gate is neither checked nor recorded: what a callback takes is checked against the locks held
/// around the gate (a synchronous observer called while the cache publishes, for one).
///
/// Client and server locks never nest (the embedded server answers through async calls and
/// streams, never under a lock), so their ranks need no order between them. Not ranked, because
/// they are not locks of this package: actors (`SyncEngine`), serial queues waited on with
/// `sync` (`CacheStore.queue` in `closeNow()`), and the runtime's own locks (`AsyncStream`).
@usableFromInline
package enum LockRank: Int, Sendable, Comparable {
    /// `LiveQuery.shared`.
    case liveQuery = 10
    /// `EntityCache.state`.
    case entityCache = 20
    /// `ObservationCenter.storage` of a derived value (a center with an upstream).
    case derivedValue = 30
    /// `ObservationCenter.storage` of every other live value.
    case liveValue = 40
    /// `CacheStore.file`.
    case cacheFile = 50
    /// `ServerConnection.linkId`.
    case serverConnection = 110
    /// `ServerEngine.core`.
    case serverCore = 120
    /// `DatabaseServerStore.state`, `ReplicaStore.state`, `LogAppender.state`.
    case storeWriter = 130
    /// `SQLiteServerDatabase.connection`.
    case storeConnection = 140
    /// Every other lock: holds no other lock.
    case leaf = 1_000
    /// `EventMailbox.state`: holds nothing, taken under any other lock of the package.
    case eventMailbox = 1_005
    /// The lock of an ``AtomicValue`` (where it has one): holds nothing, taken under anything.
    case atomicWord = 1_010
    /// Outside the order, neither checked nor recorded: `Observer.gate` (held around callbacks,
    /// which may take any lock), and every lock made without a rank (tests' own).
    case unordered = -1

    @inlinable
    package static func < (lhs: LockRank, rhs: LockRank) -> Bool { lhs.rawValue < rhs.rawValue }
}
