import CSQLite
import ChatAPI
import Dispatch
import Foundation
import Locking
import SQLiteSupport

/// The client's cache file: opened (and locked) when the client is made, read at start, written
/// behind in batches.
///
/// ## Writing behind
/// ``record(_:)`` (called by every ``EntityCache`` store, on the delivery path) only adds the
/// values to a coalescing batch under a lock and, if no write is scheduled, schedules one on the
/// store's serial queue. The writer encodes the batch and writes it in one transaction, with
/// the event sequence the batch reaches, so the file always holds a prefix of what the client
/// applied; values changed again while a batch is written go in the next one. Observers never
/// wait on disk.
///
/// ## Safety
/// WAL journal, `synchronous = NORMAL`: a killed process leaves the last committed batch; a
/// power loss may lose the last batches but never leaves a torn one. `locking_mode = EXCLUSIVE`
/// plus a write at open: the file is this client's until it closes, and a second client (in
/// this process or another) is refused. A damaged file of ours is rebuilt empty; a file that
/// is not ours is left alone and reported (``failure``).
///
/// Thread-safety: `pending` is the only state the delivery path touches; `file` (the connection)
/// is used on `queue`, or in `init` before the store is shared.
///
/// This file holds the stored state and `init`; each concern is an extension in a file of its
/// own: `CacheStore+Opening.swift`, `+Start.swift` (what the file held at start),
/// `+Loading.swift` (loading everything, decoding rows), `+WriteBehind.swift` (the delivery
/// path's side), `+Writer.swift` (the writer on `queue`), `+Eviction.swift`, `+Failures.swift`
/// and `+Inspection.swift` (for tests).
final class CacheStore: Sendable {
    /// What the file held at start.
    struct Start: Sendable {
        /// The sequence of the last event the file holds the effects of, if it can resume.
        var sequence: Int?
        /// The server history the file's values come from (``epochNumber(_:)``), if recorded.
        var epoch: Int?
        /// The first page of each live list, by the list's storage key: cache keys.
        var lists: [String: [String]] = [:]
        var channels: [Channel] = []
        var members: [ChannelMember] = []
        var messages: [Message] = []
        var users: [User] = []
    }

    /// The batch the delivery path adds to, and its flags (``pending``).
    struct Pending: Sendable {
        /// What is recorded, units of work included: the writer takes it only when no unit is
        /// under way, so the file never holds half of one.
        var writes = PendingWrites()
        /// Units under way (nested: a response applied inside another unit).
        var depth = 0
        var isScheduled = false
        /// False after `clear()`: the file no longer holds everything up to a sequence.
        var storesSequence = true

        /// Marks a write as scheduled; whether the caller must schedule it.
        mutating func scheduleIfNeeded() -> Bool {
            if isScheduled { return false }
            isScheduled = true
            return true
        }
    }

    /// The connection and what the writer keeps beside it (``file``).
    struct FileState {
        var connection: SQLiteConnection?
        /// Whether the file was rebuilt after it opened (what it held is gone).
        var wasRebuilt = false
        var lastError: ChatError?
        /// The last batch written, emptied: its dictionaries keep their room, so the batch that
        /// follows fills on the delivery path without growing.
        var spare = PendingWrites()
    }

    let path: String
    let limits: PersistenceLimits
    /// Why the file cannot be used, if it cannot (not ours, in use by another client, cannot be
    /// created): `connect()` and `clearPersistence()` throw it.
    let failure: ChatError?
    /// What the file held at start.
    let start: Start

    /// The batch the delivery path adds to. Guards only the batch and its flags. Lock order: a
    /// leaf, also taken under ``file`` (see `LockRank`).
    let pending = Lock(Pending(), rank: .leaf)
    /// The connection; used on `queue`. Lock order: `LockRank.cacheFile`, before ``pending`` (a
    /// damaged file marks the batch) and the stored-size counter.
    let file: Lock<FileState>
    let queue = DispatchQueue(label: "LiveChannels.CacheStore", qos: .utility)
    /// The writer's work so far. Guards only the figures. Lock order: a leaf (see `LockRank`).
    let stats = Lock(PersistenceStatistics(), rank: .leaf)
    /// The size change of the rows the writer updates (defined on every connection it opens).
    let sizeChange: StoredSizeChange

    /// Lists remembered for a fast start.
    static let listCapacity = 32
    /// Rows read per step while loading the whole file.
    static let chunkSize = 2_000
    /// How long the writer lets a batch gather before writing it: values changed again
    /// meanwhile are written once. `flush()` does not wait.
    static let gathering = DispatchTimeInterval.milliseconds(20)
    /// How long the writer waits before trying again after a failed write (a full disk).
    static let retryAfterFailure = DispatchTimeInterval.seconds(1)

    /// Opens (creating, migrating or rebuilding) the file at `url` and reads what a fast start
    /// needs: the event sequence, and the values shown by the first pages of the lists that were
    /// open. Never throws: a file that cannot be used is reported by ``failure``.
    init(url: URL, limits: PersistenceLimits) {
        path = url.path
        self.limits = limits
        let sizeChange = StoredSizeChange()
        self.sizeChange = sizeChange
        var connection: SQLiteConnection?
        var failure: ChatError?
        var start = Start()
        do {
            do {
                let opened = try Self.open(path, sizeChange: sizeChange)
                connection = opened
                start = try Self.readStart(opened)
            } catch let error as SQLiteError where error.code == SQLITE_CORRUPT {
                connection = nil
                connection = try Self.rebuild(path, sizeChange: sizeChange)
            } catch is StoreDamage {
                connection = nil
                connection = try Self.rebuild(path, sizeChange: sizeChange)
            }
        } catch let error as SQLiteError {
            connection = nil
            failure = error.chatError(path: path)
        } catch let error as ChatError {
            connection = nil
            failure = error
        } catch {
            connection = nil
            failure = .invalidArgument(
                field: "persistence", reason: "the cache file '\(path)' cannot be used: \(error)")
        }
        self.failure = failure
        self.start = start
        file = Lock(FileState(connection: connection), rank: .cacheFile)
    }
}
