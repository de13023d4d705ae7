import RowCoding
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
final class CacheStore: Sendable {
    /// What the file held at start.
    struct Start: Sendable {
        /// The sequence of the last event the file holds the effects of, if it can resume.
        var sequence: Int?
        /// The first page of each live list, by the list's storage key: cache keys.
        var lists: [String: [String]] = [:]
        var channels: [Channel] = []
        var members: [ChannelMember] = []
        var messages: [Message] = []
        var users: [User] = []
    }

    private struct Pending: Sendable {
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

    private struct FileState {
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

    /// The batch the delivery path adds to. Guards only the batch and its flags.
    private let pending = Lock(Pending())
    /// The connection; used on `queue`.
    private let file: Lock<FileState>
    private let queue = DispatchQueue(label: "LiveChannels.CacheStore", qos: .utility)
    /// The writer's work so far. Guards only the figures.
    private let stats = Lock(PersistenceStatistics())
    /// The size change of the rows the writer updates (defined on every connection it opens).
    private let sizeChange: StoredSizeChange

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
            failure = .invalidArgument(field: "persistence", reason: "the cache file '\(path)' cannot be used: \(error)")
        }
        self.failure = failure
        self.start = start
        file = Lock(FileState(connection: connection))
    }

    // MARK: Opening

    /// Opens the file, takes it for this client and brings its schema up to date; updates
    /// count their size changes in `sizeChange`.
    /// - Throws: `ChatError.invalidArgument` for a file that is not ours or is in use,
    ///   ``StoreDamage`` or a corrupt ``SQLiteError`` for a file of ours to rebuild.
    private static func open(_ path: String, sizeChange: StoredSizeChange) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try sizeChange.define(on: connection)
        do {
            // What the file is, read before anything changes it: switching to WAL rewrites the
            // header, which a file that is not ours must never see.
            let application = try connection.integer("PRAGMA application_id")
            let version = try connection.integer("PRAGMA user_version")
            let objects = try connection.integer("SELECT count(*) FROM sqlite_master")
            let isEmpty = application == 0 && version == 0 && objects == 0
            if !isEmpty && application != CacheSchema.applicationId {
                throw ChatError.invalidArgument(
                    field: "persistence",
                    reason: "'\(path)' is not a LiveChannels cache (an SQLite database of something else); it was left untouched")
            }
            if connection.isReadOnly {
                throw SQLiteError(code: SQLITE_READONLY, message: "the file opened read-only")
            }
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("PRAGMA synchronous = NORMAL")
            if isEmpty {
                try CacheSchema.migrate(connection, from: 0)
            } else if version > CacheSchema.version {
                throw StoreDamage.newerSchema(version)
            } else if version < CacheSchema.version {
                try CacheSchema.migrate(connection, from: version)
            }
            // A write transaction takes the exclusive lock, which this locking mode keeps until
            // the connection closes: no other client can open the file meanwhile.
            try connection.execute("BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE key = 'bytes'; COMMIT")
        } catch let error as SQLiteError where error.isBusy {
            throw error.chatError(path: path)
        }
        return connection
    }

    /// Deletes the file (and its journal) and creates an empty cache in its place.
    private static func rebuild(_ path: String, sizeChange: StoredSizeChange) throws -> SQLiteConnection {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        return try open(path, sizeChange: sizeChange)
    }

    /// Reads the sequence, the remembered lists and the values they show.
    private static func readStart(_ connection: SQLiteConnection) throws -> Start {
        var start = Start()
        try connection.statement("SELECT value FROM meta WHERE key = 'sequence'").query { start.sequence = $0.int(at: 0) }
        var keysByKind: [StoredKind: [String]] = [:]
        var seen: Set<String> = []
        try connection.statement("SELECT key, kind, keys FROM lists ORDER BY touched DESC LIMIT \(listCapacity)").query { row in
            guard let kind = StoredKind(rawValue: row.string(at: 1)),
                let keys = try? row.withBlob(at: 2, Self.decodeKeys)
            else { throw StoreDamage.undecodable(kind: "list", key: row.string(at: 0)) }
            start.lists[row.string(at: 0)] = keys
            for key in keys where seen.insert(kind.rawValue + "/" + key).inserted { keysByKind[kind, default: []].append(key) }
        }
        start.channels = try values(Channel.self, keys: keysByKind[.channels] ?? [], in: connection)
        start.members = try values(ChannelMember.self, keys: keysByKind[.members] ?? [], in: connection)
        start.messages = try values(Message.self, keys: keysByKind[.messages] ?? [], in: connection)
        start.users = try values(User.self, keys: keysByKind[.users] ?? [], in: connection)
        return start
    }

    private static func values<Entity: CachedEntity>(
        _ type: Entity.Type, keys: [String], in connection: SQLiteConnection
    ) throws -> [Entity] {
        let statement = try connection.statement("SELECT value FROM \(Entity.storedKind.table) WHERE key = ?1")
        var result: [Entity] = []
        for key in keys {
            try statement.query([key]) { row in result.append(try decode(Entity.self, column: 0, of: row, key: key)) }
        }
        return result
    }

    /// The value stored in `column` of the current row, decoded in place (no copy of the bytes).
    /// - Throws: ``StoreDamage/undecodable(kind:key:)`` naming `key` for a row that does not
    ///   decode (see ``RowCodable``).
    private static func decode<Entity: CachedEntity>(
        _ type: Entity.Type, column: Int32, of row: SQLiteStatement, key: @autoclosure () -> String
    ) throws -> Entity {
        guard let value = try? row.withBlob(at: column, { try Entity.decodeRow($0) }) else {
            throw StoreDamage.undecodable(kind: Entity.storedKind.rawValue, key: key())
        }
        return value
    }

    /// A list's stored keys: a count and the strings (``RowWriter``), nothing after them.
    private static func decodeKeys(_ bytes: UnsafeRawBufferPointer) throws(RowCodingError) -> [String] {
        var reader = RowReader(bytes)
        let keys = try reader.strings()
        try reader.finish()
        return keys
    }

    // MARK: Loading everything

    /// The next `chunkSize` stored values of a kind after row `rowid` (in storage order) and the
    /// last row read, or `nil` at the end. A damaged file is rebuilt (and reads end).
    func values<Entity: CachedEntity>(_ type: Entity.Type, after rowid: Int) async -> (values: [Entity], last: Int)? {
        await onQueue {
            self.file.withLock { state -> ([Entity], Int)? in
                guard let connection = state.connection else { return nil }
                do {
                    let statement = try connection.statement(
                        "SELECT rowid, key, value FROM \(Entity.storedKind.table) WHERE rowid > ?1 ORDER BY rowid LIMIT ?2")
                    var values: [Entity] = []
                    var last = rowid
                    try statement.query([rowid, Self.chunkSize]) { row in
                        last = row.int(at: 0)
                        values.append(try Self.decode(Entity.self, column: 2, of: row, key: row.string(at: 1)))
                    }
                    return values.isEmpty ? nil : (values, last)
                } catch {
                    self.handle(error, in: &state)
                    return nil
                }
            }
        }
    }

    /// Whether the file still holds what it held at start (it was not rebuilt).
    var isIntact: Bool { file.withLock { !$0.wasRebuilt } }

    /// The last write failure (a full disk, say), if any; `nil` again once a write succeeds.
    var lastError: ChatError? { file.withLock { $0.lastError } }

    // MARK: Writing behind (delivery path)

    /// Adds stored values to the next batch. O(k) under a lock; never waits on disk.
    func record<Entity: CachedEntity>(_ values: [Entity]) {
        let schedule = pending.withLock { pending in
            pending.writes.add(values)
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Starts a unit of work: what is recorded until ``endUnit(sequence:)`` is written in one
    /// batch or not at all (an event's channel and message together). A unit must not suspend
    /// between its start and its end: the writer waits for it to end before taking a batch.
    func beginUnit() {
        pending.withLock { $0.depth += 1 }
    }

    /// Ends a unit of work, with `sequence` (the event it applied) as the sequence the file
    /// reaches, if given.
    func endUnit(sequence: Int?) {
        let schedule = pending.withLock { pending -> Bool in
            pending.depth -= 1
            if let sequence, pending.storesSequence { pending.writes.sequence = .set(sequence) }
            guard pending.depth == 0, !pending.writes.isEmpty else { return false }
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Records the first page of a live list (cache keys), so that the next start shows it at
    /// once.
    func recordList(_ storageKey: String, kind: StoredKind, keys: [String]) {
        let schedule = pending.withLock { pending in
            pending.writes.lists[storageKey] = (kind, keys)
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Records that the values recorded so far hold every change up to event `sequence`
    /// (`nil`: the file cannot resume).
    func recordSequence(_ sequence: Int?) {
        let schedule = pending.withLock { pending -> Bool in
            let write: PendingWrites.SequenceWrite
            if let sequence {
                guard pending.storesSequence else { return false }
                write = .set(sequence)
            } else {
                write = .clear
            }
            pending.writes.sequence = write
            return pending.scheduleIfNeeded()
        }
        if schedule { scheduleWrite() }
    }

    /// Returns once everything recorded before the call is written.
    func flush() async {
        await onQueue { self.writePending() }
    }

    /// Deletes every stored row. Values stored later are written again, but the file no longer
    /// resumes from an event sequence (the next start connects afresh).
    /// - Throws: the write failure as a `ChatError`.
    func clear() async throws {
        pending.withLock { pending in
            pending.writes = PendingWrites()
            pending.storesSequence = false
        }
        try await onQueueThrowing {
            try self.file.withLock { state in
                guard let connection = state.connection else { return }
                do {
                    try connection.transaction { try connection.execute(CacheSchema.deleteEverything) }
                } catch let error as SQLiteError {
                    throw error.chatError(path: self.path)
                }
            }
        }
    }

    /// Writes what is pending and closes the file (releasing it for another client). Values
    /// stored afterwards are not written.
    func close() async {
        await onQueue {
            self.writePending()
            self.file.withLock { $0.connection = nil }
        }
    }

    /// ``close()`` for a client being freed: writes what is pending and closes the file before
    /// it returns, so a new client can open the file at once. Waits for the writer's current
    /// batch. A unit of work under way (which would be the caller's own if the client were
    /// freed inside one) is waited for at most `unitWait`; past it, what is pending is left
    /// unwritten (the file keeps the last batch written: a state the client had). Must not be
    /// called on the store's queue.
    func closeNow(unitWait: Duration = .milliseconds(100)) {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync {
            self.writePending(unitWait: unitWait)
            self.file.withLock { $0.connection = nil }
        }
    }

    /// The file's size in pages. For tests.
    func pageCount() async -> Int {
        await onQueue { self.file.withLock { (try? $0.connection?.integer("PRAGMA page_count")) ?? 0 } }
    }

    /// Caps the file at `pages` pages, as a full disk would (SQLite's `max_page_count`). For tests.
    func limitFileSize(toPages pages: Int) async {
        await onQueue { self.file.withLock { _ = try? $0.connection?.integer("PRAGMA max_page_count = \(pages)") } }
    }

    /// SQLite's `PRAGMA integrity_check` answer ("ok" for a sound file). For tests.
    func integrityCheck() async -> String {
        await onQueue {
            self.file.withLock { state in
                guard let connection = state.connection else { return "closed" }
                var lines: [String] = []
                do {
                    try connection.statement("PRAGMA integrity_check").query { lines.append($0.string(at: 0)) }
                } catch {
                    return "\(error)"
                }
                return lines.joined(separator: "\n")
            }
        }
    }

    /// The bytes of stored values, as the file counts them. For tests.
    func storedBytes() async -> Int {
        await onQueue {
            self.file.withLock { state in
                (try? state.connection?.integer("SELECT value FROM meta WHERE key = 'bytes'")) ?? 0
            }
        }
    }

    /// The stored values of a kind, in storage order. For tests.
    func storedValues<Entity: CachedEntity>(_ type: Entity.Type) async -> [Entity] {
        await onQueue {
            self.file.withLock { state in
                guard let connection = state.connection else { return [] }
                var values: [Entity] = []
                try? connection.statement("SELECT value FROM \(Entity.storedKind.table) ORDER BY rowid").query { row in
                    if let value = try? row.withBlob(at: 0, { try Entity.decodeRow($0) }) { values.append(value) }
                }
                return values
            }
        }
    }

    // MARK: Writer (queue)

    private func scheduleWrite() {
        queue.asyncAfter(deadline: .now() + Self.gathering) { self.writePending() }
    }

    /// Time spent writing and events written, for the benchmarks.
    var statistics: PersistenceStatistics { stats.withLock { $0 } }

    private func onQueue<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    private func onQueueThrowing(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// Takes the batch — once no unit is under way: units do not suspend, so the wait is a
    /// unit's few microseconds — and writes it in one transaction.
    /// - Parameter unitWait: how long to wait for a unit under way; past it nothing is written
    ///   (`nil`: as long as it takes).
    private func writePending(unitWait: Duration? = nil) {
        var spare = file.withLock { state in
            defer { state.spare = PendingWrites() }
            return state.spare
        }
        var writes = PendingWrites()
        let clock = ContinuousClock()
        let deadline = unitWait.map { clock.now + $0 }
        while true {
            let taken = pending.withLock { pending -> Bool in
                guard pending.depth == 0 else { return false }
                pending.isScheduled = false
                swap(&pending.writes, &spare)
                return true
            }
            if taken { break }
            if let deadline, clock.now >= deadline {
                file.withLock { $0.spare = spare }
                return
            }
            usleep(20)
        }
        swap(&writes, &spare)
        defer {
            writes.removeAll()
            file.withLock { $0.spare = writes }
        }
        guard !writes.isEmpty else { return }
        let start = clock.now
        let failed = file.withLock { state -> Bool in
            guard let connection = state.connection else { return false }
            do {
                try connection.transaction { try write(writes, to: connection) }
                state.lastError = nil
                return false
            } catch {
                return handle(error, in: &state)
            }
        }
        if failed {
            // Nothing of the batch was written (one transaction): it goes back under what was
            // recorded since, and is written with the next batch — the file keeps a prefix of
            // what the client had, and loses nothing once the disk has room again.
            let schedule = pending.withLock { pending -> Bool in
                var merged = writes
                merged.add(pending.writes)
                pending.writes = merged
                return pending.scheduleIfNeeded()
            }
            if schedule { queue.asyncAfter(deadline: .now() + Self.retryAfterFailure) { self.writePending() } }
            writes = PendingWrites()
            return
        }
        let elapsed = clock.now - start
        stats.withLock { stats in
            stats.writeTime += elapsed
            stats.batches += 1
            stats.values += writes.channels.count + writes.members.count + writes.messages.count + writes.users.count
        }
    }

    private func write(_ writes: PendingWrites, to connection: SQLiteConnection) throws {
        var row = RowWriter()
        _ = sizeChange.take()  // what a failed write counted
        try upsert(writes.channels, row: &row, in: connection)
        try upsert(writes.members, row: &row, in: connection)
        try upsert(writes.messages, row: &row, in: connection)
        try upsert(writes.users, row: &row, in: connection)
        let resized = sizeChange.take()
        if resized != 0 {
            try connection.statement("UPDATE meta SET value = value + ?1 WHERE key = 'bytes'").run([resized])
        }
        if !writes.lists.isEmpty {
            let touched = try connection.integer("SELECT coalesce(max(touched), 0) + 1 FROM lists")
            let statement = try connection.statement(
                "INSERT OR REPLACE INTO lists(key, kind, touched, keys) VALUES(?1, ?2, ?3, ?4)")
            for (key, list) in writes.lists {
                row.removeAll()
                row.write(list.keys)
                try statement.run([key, list.kind.rawValue, touched, row.bytes])
            }
            try connection.statement(
                "DELETE FROM lists WHERE key NOT IN (SELECT key FROM lists ORDER BY touched DESC LIMIT \(Self.listCapacity))"
            ).run()
        }
        switch writes.sequence {
        case .set(let sequence):
            try connection.statement("INSERT OR REPLACE INTO meta(key, value) VALUES('sequence', ?1)").run([sequence])
        case .clear:
            try connection.statement("DELETE FROM meta WHERE key = 'sequence'").run()
        case nil:
            break
        }
        try evict(channels: Set(writes.messages.values.map(\.channelId)), in: connection)
    }

    /// Writes each value's row (``RowCodable``), encoded into `row`, a buffer reused from row to
    /// row; keeps a stored value with a higher version. An update when the key is stored (the
    /// common case: no trigger runs), an insert otherwise. O(k) statements for k values.
    private func upsert<Entity: CachedEntity>(
        _ values: [String: Entity], row: inout RowWriter, in connection: SQLiteConnection
    ) throws {
        guard !values.isEmpty else { return }
        let update = try connection.statement(CacheSchema.update(Entity.storedKind))
        let insert = try connection.statement(CacheSchema.insert(Entity.storedKind))
        func run(_ statement: SQLiteStatement, _ value: Entity) throws {
            try statement.bind(value.version, at: 2)
            try statement.bind(value.storedScope, at: 3)
            try statement.bind(value.storedOrdinal, at: 4)
            try statement.bind(value.isPinned ? 1 : 0, at: 5)
            try statement.bind(row.bytes.count, at: 6)
            // The key and the row are bound without a copy: SQLite reads them while it runs.
            try statement.withBorrowed(value.cacheKey, at: 1) {
                try row.bytes.withUnsafeBytes { bytes in try statement.withBorrowed(bytes, at: 7) { try statement.runBound() } }
            }
        }
        func upsert(_ value: Entity) throws {
            row.removeAll()
            try value.encodeRow(to: &row)
            try run(update, value)
            // Not stored yet (inserted), or stored with a higher version (ignored).
            if connection.changes == 0 { try run(insert, value) }
        }
        // In ordinal order, so that storage order (what eviction goes by) is oldest first; kinds
        // without ordinals need no sort.
        if values.values.contains(where: { $0.storedOrdinal != 0 }) {
            for value in values.values.sorted(by: { $0.storedOrdinal < $1.storedOrdinal }) { try upsert(value) }
        } else {
            for value in values.values { try upsert(value) }
        }
    }

    /// Keeps at most `messagesPerChannel` messages in each channel written to, then, while the
    /// stored values exceed `totalBytes`, deletes the oldest-stored unpinned rows (see
    /// ``PersistenceLimits``) until they take 90% of it.
    private func evict(channels: Set<String>, in connection: SQLiteConnection) throws {
        let cap = try connection.statement(
            """
            DELETE FROM messages WHERE scope = ?1 AND ordinal < (
                SELECT ordinal FROM messages WHERE scope = ?1 ORDER BY ordinal DESC LIMIT 1 OFFSET ?2)
            """)
        for channelId in channels { try cap.run([channelId, limits.messagesPerChannel - 1]) }
        let bytes = { try connection.integer("SELECT value FROM meta WHERE key = 'bytes'") }
        guard try bytes() > limits.totalBytes else { return }
        let target = limits.totalBytes / 10 * 9
        for kind in StoredKind.evictionOrder {
            let statement = try connection.statement(
                "DELETE FROM \(kind.table) WHERE rowid IN (SELECT rowid FROM \(kind.table) WHERE pinned = 0 ORDER BY rowid LIMIT 256)")
            while try bytes() > target {
                try statement.run()
                if connection.changes == 0 { break }
            }
            if try bytes() <= target { return }
        }
    }

    /// A failed read or write: a damaged file is rebuilt empty (it stores again); anything else
    /// is kept as ``lastError``. Whether what failed to be written should be written again (not
    /// after a rebuild: the rebuilt file no longer holds what came before it).
    @discardableResult
    private func handle(_ error: any Error, in state: inout FileState) -> Bool {
        let isDamage = error is StoreDamage || (error as? SQLiteError)?.code == SQLITE_CORRUPT
        guard isDamage else {
            state.lastError = (error as? SQLiteError)?.chatError(path: path)
                ?? .invalidArgument(field: "persistence", reason: "the cache file '\(path)' failed: \(error)")
            return true
        }
        state.connection = nil
        state.wasRebuilt = true
        pending.withLock { $0.storesSequence = false }
        do {
            state.connection = try Self.rebuild(path, sizeChange: sizeChange)
        } catch {
            state.lastError = (error as? SQLiteError)?.chatError(path: path)
                ?? .invalidArgument(field: "persistence", reason: "the cache file '\(path)' failed: \(error)")
        }
        return false
    }
}
