import ChatServer
import Foundation
import Locking

/// A ``ServerDatabase`` in memory, for the tests of the database seam: it keeps rows as a
/// database does (bytes under keys, one batch applied whole or not at all), survives the
/// servers opened on it (a "restart" is a new `ChatServer(opening: .database(_:))` on the same value), and
/// fails writes and reads on demand.
final class MemoryDatabase: ServerDatabase, Sendable {
    private struct Tables: Sendable {
        var epoch: String?
        var counters: [String: Int] = [:]
        var users: [String: [UInt8]] = [:]
        var channels: [String: (info: [UInt8], extras: [UInt8]?)] = [:]
        var members: [ServerRow.MemberKey: [UInt8]] = [:]
        var messages: [String: [Int: [UInt8]]] = [:]
        var connections: [ServerRow.Device: ServerRow.Connection] = [:]
        var deviceEvents: [ServerRow.Device: ServerRow.DeviceEvents] = [:]
        var commits = 0
        var failing = false
        var opens = 0
        var readsHeld = false
        var heldReads: [CheckedContinuation<Void, Never>] = []
        var heldReadWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let tables = Lock(Tables(), rank: .leaf)

    /// Batches committed so far.
    var commits: Int { tables.withLock { $0.commits } }
    /// How many times it was opened.
    var opens: Int { tables.withLock { $0.opens } }

    /// From now on every write and read throws (`true`), or succeeds again.
    func setFailing(_ failing: Bool) { tables.withLock { $0.failing = failing } }

    /// From now on every read of messages waits (a database that is slow to answer) until
    /// ``releaseReads()``.
    func holdReads() { tables.withLock { $0.readsHeld = true } }

    /// The reads of messages waiting now (``holdReads()``).
    var waitingReads: Int { tables.withLock { $0.heldReads.count } }

    /// Returns once a read is held (``holdReads()``): no polling, the read wakes it.
    func waitForHeldRead() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let held = tables.withLock { tables -> Bool in
                if !tables.heldReads.isEmpty { return true }
                tables.heldReadWaiters.append(continuation)
                return false
            }
            if held { continuation.resume() }
        }
    }

    /// Lets the waiting reads go on, and every later read answer at once.
    func releaseReads() {
        let held = tables.withLock { tables in
            tables.readsHeld = false
            defer { tables.heldReads = [] }
            return tables.heldReads
        }
        for read in held { read.resume() }
    }

    /// Replaces a channel's stored row (a damaged database, for the tests of loading).
    func damageChannel(_ channelId: String) {
        tables.withLock { $0.channels[channelId]?.info = [0xFF, 0x00] }
    }

    /// Removes a stored message (a database that lost a row), or replaces it with bytes that do
    /// not decode (`damaging`).
    func removeMessage(channelId: String, sequence: Int, damaging: Bool = false) {
        tables.withLock { $0.messages[channelId]?[sequence] = damaging ? [0xFF, 0x00] : nil }
    }

    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "the test database is unreachable" }
    }

    func open() async throws -> ServerDatabaseContents {
        try tables.withLock { tables throws -> ServerDatabaseContents in
            if tables.failing { throw Unreachable() }
            tables.opens += 1
            if tables.epoch == nil { tables.epoch = UUID().uuidString }
            return ServerDatabaseContents(
                epoch: tables.epoch!, counters: tables.counters,
                users: tables.users.map { ServerRow.User(userId: $0.key, value: $0.value) },
                channels: tables.channels.map {
                    ServerRow.Channel(channelId: $0.key, info: $0.value.info, extras: $0.value.extras)
                },
                members: tables.members.map { ServerRow.Member(key: $0.key, value: $0.value) },
                connections: Array(tables.connections.values), deviceEvents: Array(tables.deviceEvents.values))
        }
    }

    func messages(in ranges: [ServerRow.MessageRange]) async throws -> [ServerRow.Message] {
        await withCheckedContinuation { (read: CheckedContinuation<Void, Never>) in
            let (proceed, waiters) = tables.withLock { tables -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard tables.readsHeld else { return (true, []) }
                tables.heldReads.append(read)
                defer { tables.heldReadWaiters = [] }
                return (false, tables.heldReadWaiters)
            }
            for waiter in waiters { waiter.resume() }
            if proceed { read.resume() }
        }
        return try tables.withLock { tables throws -> [ServerRow.Message] in
            if tables.failing { throw Unreachable() }
            return ranges.flatMap { range in
                (tables.messages[range.channelId] ?? [:]).compactMap { sequence, value in
                    range.sequences.contains(sequence)
                        ? ServerRow.Message(channelId: range.channelId, sequence: sequence, value: value) : nil
                }
            }
        }
    }

    func write(_ batch: ServerDatabaseBatch) async throws {
        try writeNow(batch)
    }

    /// ``write(_:)`` without suspending (for a change log that writes under its own lock).
    func writeNow(_ batch: ServerDatabaseBatch) throws {
        try tables.withLock { tables throws in
            if tables.failing { throw Unreachable() }
            for row in batch.users { tables.users[row.userId] = row.value }
            for row in batch.channels {
                tables.channels[row.channelId] = (row.info, row.extras ?? tables.channels[row.channelId]?.extras)
            }
            for row in batch.members { tables.members[row.key] = row.value }
            for key in batch.removedMembers { tables.members[key] = nil }
            for row in batch.connections { tables.connections[row.device] = row }
            for key in batch.removedConnections { tables.connections[key] = nil }
            for row in batch.deviceEvents { tables.deviceEvents[row.device] = row }
            for row in batch.messages { tables.messages[row.channelId, default: [:]][row.sequence] = row.value }
            tables.counters.merge(batch.counters) { _, new in new }
            tables.commits += 1
        }
    }

    func startNewEpoch() async throws -> String {
        tables.withLock { tables in
            tables.epoch = UUID().uuidString
            return tables.epoch!
        }
    }

    func close() async {}
}
