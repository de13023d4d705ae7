import Foundation

/// Where a ``ChatServer`` keeps its state: in memory (gone when the process ends), in an SQLite
/// file that survives restarts, in any other ``ServerDatabase`` (the `Server/` package's
/// PostgreSQL, `chat-server --postgres`), or in a cluster's shared log. Every case opens with
/// ``ChatServer/init(clock:configuration:opening:)``; memory and SQLite also synchronously, with
/// ``ChatServer/init(clock:configuration:storage:)``. Every database is written by the same
/// store (group commit), whatever it is.
///
/// ```swift
/// let server = try ChatServer(storage: .sqlite(URL(fileURLWithPath: "server.sqlite")))
/// ```
///
/// With `.sqlite`, a response (and a console call's return) comes after the transaction holding
/// its change is committed (WAL, group commit: the changes of many concurrent calls share one
/// commit). What a commit survives is ``ServerConfiguration/durability``. Reopening the file
/// restores users, channels (deleted ones too), members with their roles, read markers and
/// mentions, bans, mutes with their expiry, the channel mute and rate limit, moderation
/// settings, flags and every message; history is unlimited (older messages than the server
/// keeps in memory are read from the file when a client pages back). Not stored: who is
/// online, typing or reading (every user starts offline), and the devices' replay logs: a
/// device resuming across a restart is told to resync.
public struct ServerStorage: Sendable, Hashable {
    enum Kind: Sendable {
        case inMemory
        case sqlite(URL)
        case database(any ServerDatabase)
        case cluster(any ServerChangeLog, nodeId: String)
    }

    let kind: Kind

    /// The state lives in memory only (the default): a restart starts empty, and each channel
    /// keeps its newest ``ServerConfiguration/messagesPerChannel`` messages.
    public static let inMemory = ServerStorage(kind: .inMemory)

    /// The state lives in the SQLite file at `url` (created if missing; its directory must
    /// exist), with the newest ``ServerConfiguration/messagesPerChannel`` messages of each
    /// channel also in memory. One server at a time may use a file.
    public static func sqlite(_ url: URL) -> ServerStorage { ServerStorage(kind: .sqlite(url)) }

    /// The state lives in `database`, which this server alone writes. A database that is also a
    /// ``ServerChangeLog`` (the `Server/` package's PostgreSQL store) opens the one way PostgreSQL
    /// is run: as ``cluster(_:nodeId:)`` of one node, named ``databaseNodeId``. Opened by
    /// ``ChatServer/init(clock:configuration:opening:)``.
    public static func database(_ database: any ServerDatabase) -> ServerStorage {
        ServerStorage(kind: .database(database))
    }

    /// The node a ``database(_:)`` that is a change log is opened as (a cluster of one).
    public static let databaseNodeId = "server"

    /// The state lives in `log`, shared by every node of a cluster as one service; this server
    /// is the node `nodeId` (unique among the running nodes; the rules of a user id). Opened by
    /// ``ChatServer/init(clock:configuration:opening:)``.
    public static func cluster(_ log: any ServerChangeLog, nodeId: String) -> ServerStorage {
        ServerStorage(kind: .cluster(log, nodeId: nodeId))
    }

    /// Two storages are equal when they are in memory, name the same file, or the same database
    /// object (and node id).
    public static func == (lhs: ServerStorage, rhs: ServerStorage) -> Bool {
        switch (lhs.kind, rhs.kind) {
        case (.inMemory, .inMemory): return true
        case (.sqlite(let left), .sqlite(let right)): return left == right
        case (.database(let left), .database(let right)): return identity(of: left) == identity(of: right)
        case (.cluster(let left, let leftNode), .cluster(let right, let rightNode)):
            return identity(of: left) == identity(of: right) && leftNode == rightNode
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch kind {
        case .inMemory: hasher.combine(0)
        case .sqlite(let url): hasher.combine(url)
        case .database(let database): hasher.combine(Self.identity(of: database))
        case .cluster(let log, let nodeId):
            hasher.combine(Self.identity(of: log))
            hasher.combine(nodeId)
        }
    }

    /// An object's identity (a value type boxed anew each time is never equal to another).
    private static func identity(of value: Any) -> ObjectIdentifier { ObjectIdentifier(value as AnyObject) }
}

/// What a committed change survives (``ServerConfiguration/durability``).
public enum StorageDurability: String, Sendable, Hashable, CaseIterable {
    /// A killed or crashed server process loses nothing acknowledged; a power loss or an
    /// operating-system crash may lose the last commits (SQLite's WAL with `synchronous=NORMAL`:
    /// the file stays consistent, with a prefix of the commits). The default.
    case processCrash
    /// Nothing acknowledged is lost even on power loss: every commit waits for the disk to
    /// confirm it (`synchronous=FULL`, an fsync per group commit), at a cost in throughput that
    /// depends on the disk.
    case powerLoss
}
