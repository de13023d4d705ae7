import ChatAPI
import Foundation

/// The chat engine: the source of truth that enforces every rule of the channel types,
/// members, moderation, messages and read state, and pushes each change as an event to the
/// connected devices that may see it. The same engine runs embedded (in an app, a test, an
/// example), behind the `chat-server` executable of the `Server/` package (``WireSession`` speaks
/// the wire protocol over it), and as each node of a cluster (``ServerStorage/cluster(_:nodeId:)``).
///
/// One request path serves all three: every request and console call is an entry of a change
/// log. A single server is a log of one that applies each entry inline, under the engine's
/// lock, in the call that makes it; the nodes of a cluster append their entries to the shared
/// log and every node applies every entry in log order. The rules, the limits and the console
/// calls are written once, above that seam.
///
/// ```swift
/// let server = ChatServer()
/// let transport = server.connection(userId: "alice", deviceId: "phone")
/// try await server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
/// try await server.createChannel(type: .broadcast, channelId: "news", displayName: "News",
///                                userIds: ["alice", "bob"])
/// ```
///
/// Clients talk to it only through ``connection(userId:deviceId:)``. The other methods are the
/// *console*: trusted server-side calls that bypass permissions (not the rules of channel
/// types) and let tests and examples inspect what the server computes.
///
/// Time comes from the injected ``ServerClock``; failures from ``faults``.
///
/// - Threading: not actor-isolated; every member is thread-safe. Operations are atomic and
///   take O(size of their input) plus event fan-out (O(recipients) for member-scoped events,
///   O(users with a session) for public ones).
public final class ChatServer: Sendable {
    /// The device id of ``connection(userId:deviceId:)`` when none is given.
    public static let defaultDeviceId = "default"

    let engine: ServerEngine
    /// Fault injection for tests.
    public let faults: ServerFaults

    /// Creates an empty in-memory server.
    ///
    /// - Parameters:
    ///   - clock: the source of time (default: the system clock; use ``ManualClock`` in tests).
    ///   - configuration: typing expiry and replay-log size.
    public convenience init(
        clock: any ServerClock = SystemClock(), configuration: ServerConfiguration = ServerConfiguration()
    ) {
        self.init(engine: ServerEngine(clock: clock, configuration: configuration))
    }

    /// Opens a server on any ``ServerStorage`` — the one initializer over every case:
    ///
    /// - ``ServerStorage/inMemory``: an empty server;
    /// - ``ServerStorage/sqlite(_:)``: the SQLite file; everything it holds comes back;
    /// - ``ServerStorage/database(_:)``: a ``ServerDatabase`` this server alone writes (the
    ///   `Server/` package's PostgreSQL): everything it holds comes back, each channel's newest
    ///   ``ServerConfiguration/messagesPerChannel`` messages in memory and older pages read from
    ///   it; the server's ``epoch`` is the database's;
    /// - ``ServerStorage/cluster(_:nodeId:)``: one node of a cluster sharing a
    ///   ``ServerChangeLog`` with every other node on it, as one service. It loads the stored
    ///   state, applies the log's entries after it, then follows the log: every change any node
    ///   makes applies here too, in the log's order, and its events reach this node's
    ///   connections. ``close()`` tells the other nodes this one is gone.
    ///
    /// On storage, every response (and console call) returns once its change is committed (on a
    /// node of a cluster: committed to the log and applied here). Call ``close()`` before the
    /// server goes away, to release the storage.
    ///
    /// - Parameters:
    ///   - clock: the source of time (default: the system clock; ``ManualClock`` in tests).
    ///   - configuration: limits, durability and the messages kept in memory.
    ///   - storage: where the state lives.
    /// - Throws: `invalidArgument(field: "storage")` for a file that is not a server store of
    ///   ours (left untouched byte for byte), one written by a newer version, or one another
    ///   server holds; `invalidArgument(field: "nodeId")` for a node id that breaks the rules of
    ///   an id; `unavailable` naming what failed otherwise (the storage could not be opened or
    ///   read, a record it holds cannot be decoded, naming the record); nothing is changed then.
    public convenience init(
        clock: any ServerClock = SystemClock(), configuration: ServerConfiguration = ServerConfiguration(),
        opening storage: ServerStorage
    ) async throws(ChatError) {
        self.init(engine: try await ServerEngine.open(storage, clock: clock, configuration: configuration))
    }

    /// Creates a server whose state lives in `storage`, synchronously: ``ServerStorage/inMemory``
    /// or ``ServerStorage/sqlite(_:)`` (``init(clock:configuration:opening:)`` opens every case,
    /// a database's and a cluster's included, which open asynchronously). With `.sqlite`,
    /// everything the file holds comes back, and every response (and console call) returns
    /// once its change is written. See ``ServerStorage`` for what is kept and
    /// ``ServerConfiguration/durability`` for what a commit survives. Call ``close()`` before
    /// the server goes away to release the file.
    ///
    /// - Parameters:
    ///   - clock: the source of time (default: the system clock).
    ///   - configuration: limits and durability.
    ///   - storage: `.inMemory` or `.sqlite(url)`.
    /// - Throws: `invalidArgument(field: "storage")` for a file that is not a server store of
    ///   ours (left untouched byte for byte), one written by a newer version, or one another
    ///   server holds, and for a database or a cluster (they open with
    ///   ``init(clock:configuration:opening:)``); `unavailable` for a file that cannot be opened,
    ///   created or read.
    public convenience init(
        clock: any ServerClock = SystemClock(), configuration: ServerConfiguration = ServerConfiguration(),
        storage: ServerStorage
    ) throws(ChatError) {
        self.init(engine: try ServerEngine.openSynchronously(storage, clock: clock, configuration: configuration))
    }

    /// Checks a node id as ``init(clock:configuration:opening:)`` does for
    /// ``ServerStorage/cluster(_:nodeId:)``: the rules of a user id.
    ///
    /// - Throws: `invalidArgument(field: "nodeId")`.
    public static func checkNodeId(_ nodeId: String) throws(ChatError) {
        try InputCheck.id(nodeId, field: "nodeId")
    }

    /// A node id drawn at random: `node-` and 13 base-36 digits.
    public static func randomNodeId() -> String {
        "node-" + String(UInt64.random(in: 1...UInt64(Int64.max)), radix: 36)
    }

    /// On a node of a cluster, this node's name; `nil` on a single server.
    public var nodeId: String? { engine.replica?.nodeId }

    /// On a node of a cluster, how far behind the log this node is, in seconds (0 when it has
    /// applied everything it knows of); 0 on a single server.
    public var clusterLag: Double { engine.replica?.lag ?? 0 }

    /// On a node of a cluster, how many entries the change log kept at this node's last beat
    /// (the log is trimmed below what every live node applied and the tables hold); `nil` on a
    /// single server. `/metrics`: `chat_log_entries`.
    public var clusterLogEntries: Int? { engine.replica?.keptEntries.load() }

    /// The transactions this server committed to its database (or change log) so far.
    public var databaseCommits: Int {
        engine.replica?.commitCount ?? (engine.store as? DatabaseServerStore)?.commitCount ?? 0
    }

    private init(engine: ServerEngine) {
        self.engine = engine
        faults = ServerFaults(engine: engine)
        engine.clock.onAdvance { [weak engine] in engine?.housekeep() }
    }

    /// Closes the server: every connection ends (`.disconnected(.connectionLost)`), what is
    /// queued for the storage is written, and the file is released. Afterwards every request,
    /// connect and console change throws `ChatError.unavailable`; inspection still reads the
    /// state in memory. A second call returns at once.
    public func close() async {
        await engine.close()
    }

    /// The server's clock.
    public var clock: any ServerClock { engine.clock }

    /// The identity of the server's history, told to every client in its `ConnectResult`:
    /// drawn anew at every start of an in-memory server; kept in a store file from its
    /// creation, so the same at every restart on that file.
    public var epoch: String { engine.epoch }

    /// Whether the server's storage takes its changes: `false` while the last commit tried has
    /// failed (a database that cannot be reached, a full disk) — changes then fail with
    /// `unavailable` — `true` again once one succeeds. Always `true` in memory. What a health
    /// check reports (`chat-server`'s `/healthz` answers 503 then).
    public var isStorageHealthy: Bool { (engine.store?.isHealthy ?? true) && engine.replica?.haltReason == nil }

    /// Why this node of a cluster stopped serving by itself, if it did; `nil` while it serves
    /// (and always on a single server). A node stops rather than go on apart from the others:
    /// when it cannot read an entry of the change log (written by a newer version: upgrade it),
    /// or when another process took its node id's lease. Its connections end, every request
    /// throws `unavailable`, and ``isStorageHealthy`` is `false`.
    public var haltReason: String? { engine.replica?.haltReason }

    /// From now on, what the server could not do and went on without (a snapshot not written
    /// at close, a silent node's row not removed, an entry that could not be encoded) goes to
    /// `handler`, on whatever thread met it (`nil`: nowhere, the default). `chat-server` logs
    /// each as a warning.
    public func reportDiagnostics(to handler: (@Sendable (ServerDiagnostic) -> Void)?) {
        engine.diagnostics.deliver(to: handler)
    }

    /// Returns ``haltReason`` once this node has stopped serving by itself; `nil` at once on a
    /// single server (it never does), or when the waiting task is cancelled. `chat-server` logs
    /// it.
    public func waitForHalt() async -> String? {
        await engine.replica?.waitForHalt()
    }

    /// A transport for one device of one user. Registers the user (if the id is valid) at once;
    /// call `connect(resumingAfter:)` on it to start.
    public func connection(userId: String, deviceId: String = ChatServer.defaultDeviceId) -> any ChatTransport {
        connection(userId: userId, deviceId: deviceId, interrupt: nil)
    }

    /// ``connection(userId:deviceId:)`` whose end by the server is also told to `interrupt` at
    /// once (under the server's lock: it must not block), for ``WireSession``.
    func connection(
        userId: String, deviceId: String, interrupt: (@Sendable (DisconnectReason) -> Void)?
    ) -> ServerConnection {
        ServerConnection(engine: engine, userId: userId, deviceId: deviceId, interrupt: interrupt)
    }

    /// Checks, without connecting, whether a device of `userId` may connect now: what a network
    /// front asks before it accepts a connection (a ban from the service,
    /// ``ServerConfiguration/maxDevicesPerUser`` counting the user's devices on every node of a
    /// cluster — a node first applies every change committed before the call). The connect
    /// checks again, in the log's order on a cluster: a connect logged after a ban is refused
    /// on every node.
    ///
    /// - Throws: `forbidden` for a user banned from the service (``banUser(_:)``);
    ///   `limitExceeded` when the user has as many other devices connected as allowed;
    ///   `unavailable` when a node cannot read the cluster's log.
    public func checkCanConnect(
        userId: String, deviceId: String = ChatServer.defaultDeviceId
    ) async throws(ChatError) {
        if engine.configuration.maxDevicesPerUser != nil { try await engine.log.awaitCommitted() }
        try engine.checkConnect(of: ServerState.DeviceKey(userId: userId, deviceId: deviceId))
    }

    /// Expires typing indicators, mutes and rate limits whose time has passed, and releases
    /// late events. The server does this before every operation, on every ``ManualClock``
    /// advance, and — with a clock whose time flows by itself (``ServerClock/needsWakeUps``) —
    /// by itself at each deadline, so a typing indicator ends in a quiet chat too. Calling it
    /// is never needed; it pushes out what is due now.
    public func runHousekeeping() {
        engine.housekeep()
    }
}
