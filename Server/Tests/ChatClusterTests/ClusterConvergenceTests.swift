import ChatAPI
import ChatServer
import ChatServerPostgres
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The seeded convergence scenario on a cluster: a real PostgreSQL, three `chat-server`
/// processes, SDK clients (`WebSocketTransport` and the NIO connector) spread over the nodes, and
/// per seed one fault at a seeded step — a node SIGKILLed and restarted (under another id, or
/// at once under its own), every node's notification connection terminated
/// (`pg_terminate_backend`), PostgreSQL restarted, or a node frozen (SIGSTOP) for 1 to 6 s. After
/// healing, every client's list equals what the cluster answers, and no acknowledged message is
/// missing from the database.
@Suite(.serialized) struct ClusterConvergenceTests {
    /// `CLUSTER_SEEDS` seeds (default 100) from `CLUSTER_SEED_START` (default 1: a long run
    /// can be split over processes), or the one `CLUSTER_SEED` names (to replay one).
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["CLUSTER_SEED"].flatMap(UInt64.init) { return [one] }
        let count = UInt64(max(1, environment["CLUSTER_SEEDS"].flatMap(Int.init) ?? 100))
        let start = environment["CLUSTER_SEED_START"].flatMap(UInt64.init) ?? 1
        return Array(start..<(start + count))
    }()

    enum Fault: CaseIterable {
        /// A node SIGKILLed and started again under another id.
        case killNode
        /// Every node's `LISTEN` connection terminated.
        case terminateListeners
        /// PostgreSQL restarted.
        case restartPostgres
        /// A node SIGKILLed and started again at once under its own id (its earlier devices go
        /// offline at once).
        case restartUnderItsId
        /// A node SIGSTOPped for 1 to 6 s, then SIGCONTed (its sessions' time limits end what it
        /// held; the others go on).
        case freezeNode
    }

    /// A node on a fixed port (so that it comes back where its clients look).
    /// A node started again under its id at once may find its lease still held for a moment
    /// (PostgreSQL has not yet seen the killed process's session end): it tries again then.
    static func startNode(_ url: String, id: String, port: Int) async throws -> Subprocess {
        for attempt in 0..<20 {
            let node = try Subprocess(
                ChatServerProcess.executable,
                ["--port", "\(port)", "--dev", "--no-limits", "--postgres", url, "--node-id", id], environment: [:])
            var lines = node.lines.makeAsyncIterator()
            let first = await lines.next()
            if first?.contains("listening on") == true { return node }
            let errors = node.standardError
            if attempt < 19, errors.contains("is served by another live process") {
                try await Task.sleep(for: .milliseconds(250))
                continue
            }
            throw PostgresUnavailable(reason: "node \(id) did not start: \(first ?? "") \(errors)")
        }
        throw PostgresUnavailable(reason: "node \(id) did not start")
    }

    @Test func clientsOnThreeNodesConvergeThroughFaults() async throws {
        let postgres = try PostgresCluster.start()
        defer { postgres.stop() }
        var counts: [Fault: Int] = [:]
        for seed in Self.seeds {
            // A seed at a time among the heavy tests, so that the others need not wait for all.
            let fault = try await HeavyTestGate.run { try await runSeed(seed, postgres) }
            counts[fault, default: 0] += 1
        }
        print(
            "cluster convergence: \(Self.seeds.count) seeds, 3 nodes; faults: "
                + Fault.allCases.map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", "))
    }

    private func runSeed(_ seed: UInt64, _ postgres: PostgresCluster) async throws -> Fault {
        var random = SeededGenerator(seed: seed &* 7919)
        let name = try postgres.createDatabase()
        let url = postgres.url(name)
        var ports: [Int] = []
        var nodes: [Subprocess] = []
        for index in 0..<3 {
            // A random port may be taken (by another program): another one, a few times.
            for attempt in 0..<5 {
                let port = ChatServerProcess.fixedPort()
                do {
                    nodes.append(try await Self.startNode(url, id: "n\(index)", port: port))
                    ports.append(port)
                    break
                } catch  where attempt < 4 {
                    continue
                }
            }
        }
        defer { Subprocess.stop(nodes) }
        func transport(_ user: String, _ device: String, node: Int) -> WebSocketTransport {
            WebSocketTransport(
                url: URL(string: "ws://127.0.0.1:\(ports[node])/v1/connect")!, userId: user, deviceId: device,
                token: { "dev:\(user)" }, connector: NIOWebSocketConnector())
        }
        let placement = [0, 1, 2, 1]
        var clients: [ChatClient] = []
        for (index, (user, device)) in ConvergenceScenario.devices.enumerated() {
            let client = ChatClient(
                transport: transport(user, device, node: placement[index]), reconnectPolicy: .immediate)
            try await client.connect()
            clients.append(client)
        }
        let fault = Fault.allCases[Int(seed % UInt64(Fault.allCases.count))]
        let faultStep = 10 + Int(random.next() % 20)
        let victim = Int((seed / UInt64(Fault.allCases.count)) % 3)
        let freeze = Duration.milliseconds(1_000 + Int(random.next() % 5_000))
        var scenario = ConvergenceScenario(seed: seed, clients: clients)
        try await scenario.play(
            steps: 40, random: &random,
            drop: { index in
                // The app disconnects and connects again (resuming on the same node).
                await clients[index].disconnect()
                try? await clients[index].connect()
            },
            before: { step in
                guard step == faultStep else { return }
                switch fault {
                case .killNode:
                    kill(nodes[victim].process.processIdentifier, SIGKILL)
                    _ = await nodes[victim].exitStatus()
                    nodes[victim] = try await Self.startNode(url, id: "n\(victim)-again", port: ports[victim])
                case .terminateListeners:
                    try postgres.sql(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'",
                        database: name)
                case .restartPostgres:
                    try postgres.stop(mode: "fast")
                    try postgres.restart()
                case .restartUnderItsId:
                    kill(nodes[victim].process.processIdentifier, SIGKILL)
                    _ = await nodes[victim].exitStatus()
                    nodes[victim] = try await Self.startNode(url, id: "n\(victim)", port: ports[victim])
                case .freezeNode:
                    kill(nodes[victim].process.processIdentifier, SIGSTOP)
                    try await Task.sleep(for: freeze)
                    kill(nodes[victim].process.processIdentifier, SIGCONT)
                }
            })
        print("cluster convergence: seed \(seed), \(fault) at step \(faultStep) (node \(victim))")
        do {
            try await scenario.heal(attempts: 1_000)
            try await scenario.check(oracle: { user in
                try await transport(user, "oracle-\(seed)", node: 0).withConnection { oracle in
                    try await oracle.send(.queryChannels(ConvergenceScenario.listQuery, after: nil)).channelsValue?
                        .items ?? []
                }
            })
        } catch {
            // What the nodes logged, to tell why.
            for (index, node) in nodes.enumerated() {
                node.process.terminate()
                _ = await node.exitStatus()
                print("cluster convergence: seed \(seed), node \(index) logged:\n\(node.standardError.suffix(3_000))")
            }
            throw error
        }
        for client in clients { await client.disconnect() }
        for node in nodes {
            node.process.terminate()
            _ = await node.exitStatus()
        }
        // No acknowledged message is missing from the database, read as one more node.
        let auditor = try await ChatServer(
            opening: .cluster(PostgresServerDatabase(try PostgresEndpoint(url: url)), nodeId: "auditor"))
        let stored = Set(scenario.channels.flatMap { auditor.messages(channelId: $0).map(\.text) })
        await auditor.close()
        let lost = scenario.acknowledged.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "seed \(seed), \(fault): acknowledged but not stored: \(lost)")
        return fault
    }
}
