import ArgumentParser
import ChatAPI
import ChatServer
import ChatServerPostgres
import Foundation
import LiveChannels
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import LiveChannelsNIO
import Logging

/// `chat-load cluster --postgres URL`: `chat-server` nodes (processes) on one PostgreSQL, each
/// figure beside one node on the same database and the bare broadcast floor, in the same run
/// (`scripts/bench-cluster` starts a throw-away PostgreSQL for it). The database's `chat`
/// schema is dropped before each configuration.
///
/// - Latency: one sender at `--rate` messages/s into a 2-member channel, the receiver on
///   another node; p50/p99.
/// - The log's own rate: console sends (no network) by 64 concurrent senders into nodes in this
///   process, beside the single-server PostgreSQL store.
/// - Durable messages per second: 64 senders spread over the nodes, 16 sends in flight each,
///   every send acknowledged once committed to the log and applied on its node.
/// - Fan-out: deliveries per second in a 100-member channel whose members are spread over the
///   nodes, one sender.
/// - Idle: `--idle` connections held across `--idle-nodes` nodes by `--idle-workers` worker
///   processes (a process holds at most about 19,900), with the memory they cost, beside bare
///   Hummingbird WebSocket connections.
/// - Month (only when named): `--month-messages` acknowledged sends through the nodes, with the
///   change log's rows and the database's size sampled as they go (``month(_:)``).
struct Cluster: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Several chat-server nodes on one PostgreSQL, beside one node and a bare broadcast.")

    @Option(
        help:
            "An empty PostgreSQL database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (its schema chat is replaced)."
    )
    var postgres: String
    @Option(help: "Nodes of the latency, throughput and fan-out runs.") var nodes = 3
    @Option(help: "Messages per second of the latency run.") var rate = 1_000
    @Option(help: "Seconds of the latency and throughput runs.") var seconds = 5.0
    @Option(help: "Senders of the throughput run, spread over the nodes.") var senders = 64
    @Option(help: "Sends in flight per sender in the throughput run.") var window = 16
    @Option(help: "Idle connections held across the cluster.") var idle = 100_000
    @Option(help: "Nodes of the idle run.") var idleNodes = 7
    @Option(help: "Worker processes holding the idle run's connections.") var idleWorkers = 6
    @Option(help: "Messages of the month run (not run unless named in --runs).") var monthMessages = 1_000_000
    @Option(help: "Seconds between the month run's samples.") var sampleEvery = 30.0
    @Option(help: "The runs to make, comma-separated: latency, log, throughput, fanout, idle, month.")
    var runs = "latency,log,throughput,fanout,idle"

    func run() async throws {
        let endpoint = try PostgresEndpoint(url: postgres)
        let runs = Set(self.runs.split(separator: ",").map(String.init))
        if runs.contains("latency") { try await latency(endpoint) }
        if runs.contains("log") { try await log(endpoint) }
        if runs.contains("throughput") { try await throughput(endpoint) }
        if runs.contains("fanout") { try await fanout(endpoint) }
        if runs.contains("idle") { try await idleRun(endpoint) }
        if runs.contains("month") { try await month(endpoint) }
    }

    // MARK: Nodes

    /// Starts `count` nodes on a fresh `chat` schema (or, `onPostgres` false, one in-memory
    /// `chat-server`), one after the other, dev tokens, no rate limits.
    func start(
        _ count: Int, onPostgres: Bool = true, _ endpoint: PostgresEndpoint, extra: [String] = []
    ) async throws -> [ServerProcess] {
        var started: [ServerProcess] = []
        if onPostgres { try await Storage.dropSchema(endpoint) }
        for index in 0..<count {
            let storage = onPostgres ? ["--postgres", postgres, "--node-id", "n\(index)"] : []
            started.append(
                try await ServerProcess(
                    ServerProcess.product("chat-server"),
                    ["--dev", "--port", "0", "--no-limits"] + storage + extra))
        }
        return started
    }

    /// The configurations each networked figure is measured on: the label and the nodes.
    private func configurations() -> [(label: String, nodes: Int, onPostgres: Bool)] {
        [("1 node, in memory", 1, false), ("1 node, PostgreSQL", 1, true), ("\(nodes) nodes, PostgreSQL", nodes, true)]
    }

    // MARK: Latency

    private func latency(_ endpoint: PostgresEndpoint) async throws {
        print("## cluster — send → receive latency at \(rate) messages/s, 2-member channel\n")
        print("| | messages | p50 | p99 |")
        print("|---|---|---|---|")
        let origin = ContinuousClock.now
        let floor = try await withServices(FloorServer().services(onRunning:)) { port in
            let sender = try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast")
            let receiver = try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast")
            return try await Latency.measure(
                paced: true, rate: rate, seconds: seconds, origin: origin, sender: sender, receiver: receiver,
                isAnswer: { _ in true }
            ) { stamp, _ in "t=\(stamp)" }
        }
        Self.latencyRow("floor (bare broadcast)", floor)
        // The same floor in a process of its own, as the nodes are: what crossing processes
        // costs by itself.
        let floorProcess = try await ServerProcess(ServerProcess.product("chat-load"), ["idle", "--floor-server"])
        let apart = try await Latency.measure(
            paced: true, rate: rate, seconds: seconds, origin: origin,
            sender: try await NIOConnect.open("ws://127.0.0.1:\(floorProcess.port)/broadcast"),
            receiver: try await NIOConnect.open("ws://127.0.0.1:\(floorProcess.port)/broadcast"),
            isAnswer: { _ in true }
        ) { stamp, _ in "t=\(stamp)" }
        floorProcess.stop()
        Self.latencyRow("floor (bare broadcast), a process of its own", apart)
        for configuration in configurations() {
            let started = try await start(configuration.nodes, onPostgres: configuration.onPostgres, endpoint)
            defer { for node in started { node.stop() } }
            let receiver = try await RawClient.connect(port: started[started.count > 1 ? 1 : 0].port, user: "b")
            let sender = try await RawClient.connect(port: started[0].port, user: "a")
            _ = try await sender.request(
                .createChannel(ChannelDraft(type: .community, channelId: "room", userIds: ["b"])))
            let result = try await Latency.measure(
                paced: true, rate: rate, seconds: seconds, origin: origin, sender: sender.connection,
                receiver: receiver.connection, isAnswer: FrameText.isAnswer
            ) { stamp, index in
                try WireCodec.encode(
                    .request(id: index, request: .sendMessage(MessageDraft(channelId: "room", text: "t=\(stamp)"))))
            }
            let route = configuration.nodes > 1 ? " (node 0 → node 1)" : ""
            Self.latencyRow(configuration.label + route, result)
        }
        print("")
    }

    private static func latencyRow(_ label: String, _ result: (latencies: [Double], seconds: Double)) {
        let p50 = LoadStatistics.percentile(50, of: result.latencies)
        let p99 = LoadStatistics.percentile(99, of: result.latencies)
        print(
            "| \(label) | \(result.latencies.count) | \(LoadStatistics.milliseconds(p50)) | \(LoadStatistics.milliseconds(p99)) |"
        )
    }

    // MARK: The log's rate, without the network

    private func log(_ endpoint: PostgresEndpoint) async throws {
        let total = 20_000
        print(
            "## cluster — the change log's rate: \(total) console sends, 64 senders, 100 channels, nodes in one process\n"
        )
        print("| | sends/s | CPU per send (this process) | database commits |")
        print("|---|---|---|---|")
        var logger = Logger(label: "chat-load")
        logger.logLevel = .error
        for count in [1, nodes] {
            try await Storage.dropSchema(endpoint)
            var databases: [PostgresServerDatabase] = []
            var servers: [ChatServer] = []
            for index in 0..<count {
                let database = PostgresServerDatabase(endpoint, logger: logger)
                databases.append(database)
                servers.append(try await ChatServer(opening: .cluster(database, nodeId: "n\(index)")))
            }
            for number in 0..<100 {
                try await servers[number % servers.count].createChannel(
                    type: .community, channelId: "c\(number)", userIds: ["ann"])
            }
            let commitsBefore = servers.map(\.databaseCommits).reduce(0, +)
            let cpuBefore = LoadStatistics.cpuSeconds(of: getpid()) ?? 0
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<64 {
                    let server = servers[worker % servers.count]
                    group.addTask {
                        for number in stride(from: worker, to: total, by: 64) {
                            try await server.sendMessage(as: "ann", channelId: "c\(number % 100)", text: "m\(number)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let elapsed = Storage.seconds(ContinuousClock.now - start)
            let cpu = (LoadStatistics.cpuSeconds(of: getpid()) ?? 0) - cpuBefore
            let commits = servers.map(\.databaseCommits).reduce(0, +) - commitsBefore
            for server in servers { await server.close() }
            let label = "\(count) node\(count == 1 ? "" : "s") on the log"
            print(
                "| \(label) | \(Int(Double(total) / elapsed)) | \(Self.microseconds(cpu, per: total)) | \(commits) |")
        }
        print("")
    }

    // MARK: Durable messages per second

    private func throughput(_ endpoint: PostgresEndpoint) async throws {
        let window = window
        print("## cluster — acknowledged messages per second (\(senders) senders, \(window) in flight each)\n")
        print("| | messages | per second | server CPU per message | database commits |")
        print("|---|---|---|---|---|")
        for configuration in configurations() {
            let started = try await start(configuration.nodes, onPostgres: configuration.onPostgres, endpoint)
            defer { for node in started { node.stop() } }
            var clients: [RawClient] = []
            for index in 0..<senders {
                let client = try await RawClient.connect(
                    port: started[index % started.count].port, user: "s\(index)")
                // A live channel, seen by its member only: in a community channel each message
                // would also go to every other sender (a `channelUpdated` for their lists).
                _ = try await client.request(
                    .createChannel(ChannelDraft(type: .live, channelId: "s\(index)", userIds: [])))
                clients.append(client)
            }
            let commitsBefore = try await Self.commits(of: started)
            let cpuBefore = started.map(\.cpuSeconds).reduce(0, +)
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
            let start = ContinuousClock.now
            let (acknowledged, finished) = try await withThrowingTaskGroup(
                of: (Int, ContinuousClock.Instant).self
            ) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        try await Self.send(from: client, into: "s\(index)", window: window, until: deadline)
                    }
                }
                return try await group.reduce((0, start)) { ($0.0 + $1.0, max($0.1, $1.1)) }
            }
            let elapsed = Storage.seconds(finished - start)
            let cpu = started.map(\.cpuSeconds).reduce(0, +) - cpuBefore
            let commits = try await Self.commits(of: started) - commitsBefore
            for client in clients { await client.connection.close(code: 1000, reason: "") }
            let commitText = configuration.onPostgres ? "\(commits)" : "—"
            print(
                "| \(configuration.label) | \(acknowledged) | \(Int(Double(acknowledged) / elapsed)) | \(Self.microseconds(cpu, per: acknowledged)) | \(commitText) |"
            )
        }
        print("")
    }

    /// Sends into `channelId` with `window` sends unanswered at most, until `deadline`, then
    /// waits for the last answers; returns how many were answered with a message, and when the
    /// last answer came.
    private static func send(
        from client: RawClient, into channelId: String, window: Int, until deadline: ContinuousClock.Instant
    ) async throws -> (Int, ContinuousClock.Instant) {
        let free = Semaphore(window)
        let answers = Task { () -> (acknowledged: Int, answered: Int) in
            var acknowledged = 0
            var answered = 0
            for await item in client.connection.inbound {
                guard case .text(let text) = item, FrameText.isAnswer(text) else { continue }
                answered += 1
                if FrameText.contains(text, "\"type\":\"response\"") { acknowledged += 1 }
                free.signal()
            }
            return (acknowledged, answered)
        }
        var sent = 0
        while ContinuousClock.now < deadline {
            await free.wait()
            try await client.connection.send(
                WireCodec.encode(
                    .request(id: sent, request: .sendMessage(MessageDraft(channelId: channelId, text: "m\(sent)")))))
            sent += 1
        }
        // Every place of the window back: every send answered.
        for _ in 0..<window { await free.wait() }
        let finished = ContinuousClock.now
        answers.cancel()
        return (await answers.value.acknowledged, finished)
    }

    /// `seconds` per `count`, in µs.
    private static func microseconds(_ seconds: Double, per count: Int) -> String {
        String(format: "%.1f µs", seconds / Double(max(1, count)) * 1e6)
    }

    /// The sum of the nodes' `chat_db_commits_total`.
    private static func commits(of nodes: [ServerProcess]) async throws -> Int {
        var total = 0
        for node in nodes {
            let (data, _) = try await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(node.port)/metrics")!)
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
            where line.hasPrefix("chat_db_commits_total ") {
                total += Int(Double(line.split(separator: " ").last ?? "") ?? 0)
            }
        }
        return total
    }

    // MARK: Fan-out

    private func fanout(_ endpoint: PostgresEndpoint) async throws {
        let members = 100
        let messages = 2_000
        print("## cluster — fan-out: \(members)-member channel, \(messages) messages, one sender (64 in flight)\n")
        print("| | deliveries/s | × the floor | × 1 node on PostgreSQL | server CPU per delivery |")
        print("|---|---|---|---|---|")
        let reference = try Fanout.parse(["--members", "\(members)", "--messages", "\(messages)"])
        let floor = try await withServices(FloorServer().services(onRunning:)) { port in
            try await reference.measureFloor(port: port)
        }
        print("| floor (bare broadcast) | \(Int(floor)) | 1.00× | | |")
        var single: Double?
        for configuration in configurations() {
            let started = try await start(configuration.nodes, onPostgres: configuration.onPostgres, endpoint)
            defer { for node in started { node.stop() } }
            let cpuBefore = started.map(\.cpuSeconds).reduce(0, +)
            let rate = try await Self.fanout(
                ports: started.map(\.port), members: members, messages: messages, window: 64)
            let cpu = started.map(\.cpuSeconds).reduce(0, +) - cpuBefore
            if configuration.onPostgres, configuration.nodes == 1 { single = rate }
            let versusSingle = single.map { String(format: "%.2f×", rate / $0) } ?? ""
            print(
                "| \(configuration.label) | \(Int(rate)) | \(String(format: "%.2f×", rate / floor)) | \(versusSingle) | \(Self.microseconds(cpu, per: members * messages)) |"
            )
        }
        print("")
    }

    /// Deliveries per second with `members` members spread round-robin over `ports`, the first
    /// sending `messages` messages.
    private static func fanout(ports: [Int], members: Int, messages: Int, window: Int) async throws -> Double {
        var clients: [RawClient] = []
        for index in 0..<members {
            clients.append(try await RawClient.connect(port: ports[index % ports.count], user: "u\(index)"))
        }
        _ = try await clients[0].request(
            .createChannel(
                ChannelDraft(type: .community, channelId: "room", userIds: (1..<members).map { "u\($0)" })))
        let inFlight = Semaphore(window)
        let receiving = Fanout.receive(clients.map(\.connection), target: messages) { index, text in
            if index == 0, FrameText.isAnswer(text) { inFlight.signal() }
            return FrameText.contains(text, "\"messageNew\"")
        }
        let sender = clients[0].connection
        let start = ContinuousClock.now
        for index in 0..<messages {
            await inFlight.wait()
            try await sender.send(
                WireCodec.encode(
                    .request(id: index, request: .sendMessage(MessageDraft(channelId: "room", text: "m\(index)")))))
        }
        await receiving.value
        let seconds = Storage.seconds(ContinuousClock.now - start)
        for client in clients { await client.connection.close(code: 1000, reason: "") }
        return Double(members * messages) / seconds
    }
}
