import ChatAPI
import Dispatch
import Foundation
import Locking

/// Opening an engine on any ``ServerStorage``: one path per case, each ending in the same
/// engine over a ``ServerStore`` — none for memory, ``DatabaseServerStore`` for the SQLite file
/// and any ``ServerDatabase``, a node's ``ReplicaStore`` for a cluster.
extension ServerEngine {
    /// An engine on `storage`, opened and restored (see ``ChatServer/init(clock:configuration:opening:)``).
    ///
    /// - Throws: as ``ChatServer/init(clock:configuration:opening:)``.
    static func open(_ storage: ServerStorage, clock: any ServerClock, configuration: ServerConfiguration)
        async throws(ChatError) -> ServerEngine
    {
        switch storage.kind {
        case .inMemory, .sqlite:
            return try openSynchronously(storage, clock: clock, configuration: configuration)
        case .database(let database as any ServerChangeLog):
            // A database that is also a change log (PostgreSQL) has one mode, the one `chat-server`
            // runs: a node of a cluster — here a cluster of one.
            return try await open(
                .cluster(database, nodeId: ServerStorage.databaseNodeId), clock: clock, configuration: configuration)
        case .database(let database):
            let (store, core, _) = try await restore(from: database, configuration: configuration)
            return ServerEngine(clock: clock, configuration: configuration, store: store, restored: core)
        case .cluster(let log, let nodeId):
            try InputCheck.id(nodeId, field: "nodeId")
            let incarnation: Int
            do {
                incarnation = try await log.lease(node: nodeId)
            } catch let error as ServerNodeInUse {
                throw .unavailable(error.description)
            } catch {
                throw .unavailable("the change log cannot be reached: \(error)")
            }
            // The tables, then the log after them. Should the log have been trimmed past the
            // tables read (another node wrote a newer snapshot meanwhile), the tables are read
            // again: they are at least that new now.
            var attempt = 0
            while true {
                attempt += 1
                let (store, core, stored) = try await restore(from: log, configuration: configuration)
                let position = stored.counters.logPosition
                let replica = ClusterReplica(
                    nodeId: nodeId, incarnation: incarnation, log: log, reader: store, position: position, clock: clock)
                let engine = ServerEngine(
                    clock: clock, configuration: configuration, replica: replica, restored: core, position: position,
                    connections: ConnectionTable(restoring: stored.connections), deviceEvents: stored.deviceEvents)
                do throws(LogFollower.CatchUpError) {
                    try await replica.catchUp(engine)
                } catch {
                    switch error {
                    case .fellBehind where attempt < 3:
                        // This attempt's engine and reader are dropped (the reader holds no
                        // writes; the database stays open for the next attempt).
                        continue
                    case .fellBehind(let gap): throw .unavailable(gap.description)
                    case .failed(let error): throw error
                    }
                }
                replica.start(engine)
                // The devices an earlier run of this node left connected on paper (it crashed, or
                // another process died with the id) go offline on every node now, before this run
                // connects any: not once the others find the node silent.
                _ = try await replica.submit(.nodeDown(nodeId), time: clock.now)
                return engine
            }
        }
    }

    /// An engine on `storage` when it opens synchronously: in memory, or the SQLite file.
    ///
    /// - Throws: as ``ChatServer/init(clock:configuration:storage:)``.
    static func openSynchronously(
        _ storage: ServerStorage, clock: any ServerClock, configuration: ServerConfiguration
    ) throws(ChatError) -> ServerEngine {
        switch storage.kind {
        case .inMemory:
            return ServerEngine(clock: clock, configuration: configuration)
        case .sqlite(let url):
            let database = try SQLiteServerDatabase(
                url: url, durability: configuration.durability, startsNewEpoch: configuration.startsNewEpoch)
            return try ServerEngine(clock: clock, configuration: configuration, sqlite: database)
        case .database, .cluster:
            throw .invalidArgument(
                field: "storage",
                reason: "a database or a cluster opens asynchronously: use ChatServer(clock:configuration:opening:)")
        }
    }

    /// An engine on the SQLite file `database`, starting from what it holds: the state is rebuilt
    /// on another thread while this one reads the messages; its changes are then written by a
    /// ``DatabaseServerStore``, as a PostgreSQL database's are.
    ///
    /// - Throws: the database's `ChatError` when it cannot be read.
    convenience init(clock: any ServerClock, configuration: ServerConfiguration, sqlite database: SQLiteServerDatabase)
        throws(ChatError)
    {
        let messagesPerChannel = configuration.messagesPerChannel
        let stored = try database.loadState(messagesPerChannel: messagesPerChannel)
        let channelInfos = stored.channels.map(\.info)
        let rebuilt = Lock<ServerCore?>(nil, rank: .leaf)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let core = ServerCore(configuration: configuration, restoring: stored)
            rebuilt.withLock { $0 = core }
        }
        let messages = Result { () throws(ChatError) in
            try database.loadNewestMessages(of: channelInfos, messagesPerChannel: messagesPerChannel)
        }
        group.wait()
        var core = rebuilt.withLock { $0.take()! }
        core.state.attach(try messages.get(), to: channelInfos.map(\.channelId))
        let store = DatabaseServerStore(
            database: database, epoch: database.epoch, messagesPerChannel: messagesPerChannel)
        self.init(clock: clock, configuration: configuration, store: store, restored: core)
    }

    /// Opens `database` and restores what it holds: its store, the engine's core (the newest
    /// messages of each channel attached: read, and decoded as they arrive, while the rest of the
    /// state is rebuilt), and the stored state it came from — for a single server on a database
    /// and for a node of a cluster alike.
    ///
    /// - Throws: `unavailable` naming what failed (the database could not be opened or read, a
    ///   record cannot be decoded).
    static func restore(from database: any ServerDatabase, configuration: ServerConfiguration) async throws(ChatError)
        -> (store: DatabaseServerStore, core: ServerCore, stored: StoredState)
    {
        let (store, stored) = try await DatabaseServerStore.open(
            database, messagesPerChannel: configuration.messagesPerChannel, startsNewEpoch: configuration.startsNewEpoch
        )
        let channels = stored.channels.map(\.info)
        async let rebuilt = rebuiltCore(configuration: configuration, restoring: stored)
        let messages = try await store.newestMessages(of: channels)
        var core = await rebuilt
        core.state.attach(messages, to: channels.map(\.channelId))
        return (store, core, stored)
    }

    /// The core of an engine restored from `stored` before its messages are attached: what a
    /// restart computes while the messages are still being read.
    private static func rebuiltCore(configuration: ServerConfiguration, restoring stored: StoredState) async
        -> ServerCore
    {
        ServerCore(configuration: configuration, restoring: stored)
    }
}
