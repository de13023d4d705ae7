import Foundation

/// Where a ``ChatServer`` keeps its state: in memory (gone when the process ends) or in an
/// SQLite file that survives restarts. (A server on another ``ServerDatabase`` — the `Server/`
/// package's PostgreSQL, `chat-server --postgres` — is made by
/// ``ChatServer/init(clock:configuration:database:)``, a node of a cluster by
/// ``ChatServer/init(clock:configuration:log:nodeId:)``: their opening is asynchronous. All of
/// them write through the same store, ``DatabaseServerStore``.)
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
    enum Kind: Sendable, Hashable {
        case inMemory
        case sqlite(URL)
    }

    let kind: Kind

    /// The state lives in memory only (the default): a restart starts empty, and each channel
    /// keeps its newest ``ServerConfiguration/messagesPerChannel`` messages.
    public static let inMemory = ServerStorage(kind: .inMemory)

    /// The state lives in the SQLite file at `url` (created if missing; its directory must
    /// exist), with the newest ``ServerConfiguration/messagesPerChannel`` messages of each
    /// channel also in memory. One server at a time may use a file.
    public static func sqlite(_ url: URL) -> ServerStorage { ServerStorage(kind: .sqlite(url)) }
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
