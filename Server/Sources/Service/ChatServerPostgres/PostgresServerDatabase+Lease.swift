import ChatServer
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// A node id's lease (``ServerChangeLog/lease(node:)``): a PostgreSQL session-level advisory
/// lock, held by a connection of its own for as long as the process runs. PostgreSQL releases it
/// when that session ends — the process exited or was killed, or its connection was cut (the
/// session's keep-alives, ``PostgresServerDatabase/sessionLimits``) — so a crashed node's id can
/// be taken again at once, and never by two live processes.
///
/// The lock's key is `(1280, hashtext(node id))`: two ids with the same hash would refuse each
/// other (reported as the id in use; choose another id). Each lease taken counts the id's
/// incarnation up in `chat.node_leases`.
///
/// A lease is asked for over 3 s before it is refused: a process that just ended may hold it
/// until PostgreSQL sees its session end. When the lease's connection drops (PostgreSQL
/// restarted), the lease is taken again as soon
/// as PostgreSQL answers; if another process took the id meanwhile, the lease is lost:
/// ``beat(node:silentFor:)`` throws ``ServerNodeInUse`` and the node stops.
struct NodeLease: Sendable {
    var node: String
    var incarnation: Int
    /// The session holding the lock (`nil` while it is taken again).
    var connection: PostgresConnection?
    /// Keeps the lock: takes it again when the connection drops.
    var keeper: Task<Void, Never>?
    /// Another process holds the id now.
    var isLost = false
}

extension PostgresServerDatabase {
    /// The first key of the lease's advisory lock (the second is the id's hash).
    static let leaseLockSpace = 1280

    /// A direct connection's configuration for `endpoint`, with the session limits
    /// (``sessionLimits``): what the notification listener and the lease connect with.
    ///
    /// - Throws: NIOSSL's error when the TLS configuration cannot be used.
    public static func sessionConfiguration(_ endpoint: PostgresEndpoint) throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.user, password: endpoint.password,
            database: endpoint.database, tls: try Self.connectionTLS(endpoint))
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = sessionLimits
        return configuration
    }

    public func lease(node: String) async throws -> Int {
        if let held = heldLease.withLockedValue({ $0 }), held.node == node {
            if held.isLost { throw ServerNodeInUse(node: node) }
            return held.incarnation
        }
        // Before the tables are read: the schema (and its table of leases) may not exist yet.
        try await prepare()
        let connection = try await PostgresConnection.connect(
            configuration: try Self.sessionConfiguration(endpoint), id: 2, logger: logger)
        do {
            // A process that just ended (killed, or stopped) may still hold it for a moment, until
            // PostgreSQL has seen its session end: a few tries over 3 s before refusing.
            var taken = try await Self.takeLock(of: node, on: connection, logger: logger)
            for _ in 0..<12 where !taken {
                try await Task.sleep(for: .milliseconds(250))
                taken = try await Self.takeLock(of: node, on: connection, logger: logger)
            }
            guard taken else { throw ServerNodeInUse(node: node) }
            let incarnation = try await connection.query(
                """
                INSERT INTO chat.node_leases(id, incarnation) VALUES (\(node), 1)
                ON CONFLICT (id) DO UPDATE SET incarnation = chat.node_leases.incarnation + 1
                RETURNING incarnation
                """, logger: logger
            ).collect().first?.decode(Int.self)
            guard let incarnation else { throw PostgresStoreError.notOurs("chat.node_leases returned no row") }
            heldLease.withLockedValue {
                $0 = NodeLease(node: node, incarnation: incarnation, connection: connection)
            }
            let keeper = Task { await self.keepLease(of: node, incarnation: incarnation, on: connection) }
            heldLease.withLockedValue { $0?.keeper = keeper }
            return incarnation
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `pg_try_advisory_lock` of `node`'s lease on `connection`: whether it is held now.
    private static func takeLock(of node: String, on connection: PostgresConnection, logger: Logger) async throws
        -> Bool
    {
        try await connection.query(
            "SELECT pg_try_advisory_lock(\(leaseLockSpace)::int, hashtext(\(node)))", logger: logger
        ).collect().first?.decode(Bool.self) ?? false
    }

    /// Waits for the lease's session to end, then takes the lock again on a new one (every
    /// 250 ms while PostgreSQL is away) — unless another process has taken the id meanwhile
    /// (the lock is held elsewhere, or the id's incarnation moved on): the lease is then lost.
    private func keepLease(of node: String, incarnation: Int, on first: PostgresConnection) async {
        var connection = first
        while !Task.isCancelled {
            try? await connection.closeFuture.get()
            heldLease.withLockedValue { $0?.connection = nil }
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                guard
                    let next = try? await PostgresConnection.connect(
                        configuration: try Self.sessionConfiguration(endpoint), id: 2, logger: logger)
                else { continue }
                do {
                    let current = try await next.query(
                        "SELECT incarnation FROM chat.node_leases WHERE id = \(node)", logger: logger
                    ).collect().first?.decode(Int.self)
                    let taken = try await Self.takeLock(of: node, on: next, logger: logger)
                    guard taken, current == incarnation else {
                        logger.critical("node \(node) lost its lease: another process serves the id")
                        heldLease.withLockedValue { $0?.isLost = true }
                        try? await next.close()
                        return
                    }
                    heldLease.withLockedValue { $0?.connection = next }
                    connection = next
                    break
                } catch {
                    try? await next.close()
                }
            }
        }
        // Released (cancelled) while taking the lock again: the new session is nobody else's to
        // close. (Closing one already closed by the release is harmless.)
        try? await connection.close()
    }

    /// Throws ``ServerNodeInUse`` when this database lost `node`'s lease.
    func checkLease(of node: String) throws {
        if heldLease.withLockedValue({ $0?.node == node && $0?.isLost == true }) {
            throw ServerNodeInUse(node: node)
        }
    }

    /// Ends the lease (on close): the id is free for the next run at once.
    func releaseLease() async {
        guard let lease = heldLease.withLockedValue({ $0 }) else { return }
        heldLease.withLockedValue { $0 = nil }
        lease.keeper?.cancel()
        guard let connection = lease.connection else { return }
        // Unlocked before the session closes, so that the next run finds it free at once; at
        // most a second, as the fence's removal: a node that stops while PostgreSQL does not
        // answer still ends (the session's end frees the lock anyway).
        let (node, logger) = (lease.node, logger)
        let unlock = Task {
            _ = try await connection.query(
                "SELECT pg_advisory_unlock(\(Self.leaseLockSpace)::int, hashtext(\(node)))", logger: logger)
        }
        try? await Self.result(of: unlock, within: .seconds(1)) { CancellationError() }
        try? await connection.close()
    }
}
