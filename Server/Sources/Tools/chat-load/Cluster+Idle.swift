import ChatAPI
import ChatServerPostgres
import Foundation

/// `chat-load cluster`'s idle run: `--idle` connections held across `--idle-nodes` nodes by
/// worker processes, with the server memory they cost, beside bare Hummingbird connections.
extension Cluster {
    func idleRun(_ endpoint: PostgresEndpoint) async throws {
        print("## cluster — \(idle) idle connections across \(idleNodes) nodes (\(idleWorkers) client processes)\n")
        let started = try await start(idleNodes, endpoint, extra: ["--ping-interval", "120"])
        defer { for node in started { node.stop() } }
        try await Task.sleep(for: .seconds(1))
        let before = started.map(\.residentBytes)
        let opening = ContinuousClock.now
        let (held, workers) = try await Self.hold(idle, over: started.map(\.port), workers: idleWorkers, bare: false)
        let took = Storage.seconds(ContinuousClock.now - opening)
        try await Task.sleep(for: .seconds(2))
        let after = started.map(\.residentBytes)
        for worker in workers { worker.closeInput() }
        for worker in workers { worker.process.waitUntilExit() }
        for node in started { node.stop() }

        // The floor: as many bare connections as one node held, in a process of its own.
        let perNode = held / idleNodes
        let floorProcess = try await ServerProcess(ServerProcess.product("chat-load"), ["idle", "--floor-server"])
        defer { floorProcess.stop() }
        try await Task.sleep(for: .seconds(1))
        let floorBefore = floorProcess.residentBytes
        let (floorHeld, floorWorkers) = try await Self.hold(
            perNode, over: [floorProcess.port], workers: 1, bare: true)
        try await Task.sleep(for: .seconds(2))
        let floorAfter = floorProcess.residentBytes
        for worker in floorWorkers { worker.closeInput() }
        for worker in floorWorkers { worker.process.waitUntilExit() }

        let grown = zip(before, after).map { $1 - $0 }
        let total = grown.reduce(0, +)
        let floorEach = floorHeld > 0 ? (floorAfter - floorBefore) / floorHeld : 0
        print("| | connections | server memory per connection |")
        print("|---|---|---|")
        print("| floor (bare Hummingbird WebSocket, one process) | \(floorHeld) | \(floorEach / 1_024) KiB |")
        for (index, bytes) in grown.enumerated() {
            print(
                "| node \(index): its growth / its own connections | \(perNode) | \(bytes / max(1, perNode) / 1_024) KiB |"
            )
        }
        print("| the cluster: every node's growth / every connection | \(held) | \(total / max(1, held) / 1_024) KiB |")
        print("")
        print(
            "held \(held) of \(idle) across \(idleNodes) nodes; opened in \(String(format: "%.1f", took)) s (\(Int(Double(held) / took)) connections/s); cluster memory grew \(LoadStatistics.mebibytes(total))"
        )
        print("")
    }

    /// Starts `workers` worker processes holding `count` connections between them over `ports`;
    /// returns how many they hold and the workers (still holding: close their input to end).
    private static func hold(
        _ count: Int, over ports: [Int], workers: Int, bare: Bool
    ) async throws -> (held: Int, workers: [ServerProcess]) {
        var started: [ServerProcess] = []
        for index in 0..<workers {
            let share = count / workers + (index < count % workers ? 1 : 0)
            started.append(
                try await ServerProcess(
                    ServerProcess.product("chat-load"),
                    [
                        "idle-worker", "--ports", ports.map(String.init).joined(separator: ","), "--connections",
                        "\(share)", "--prefix", "w\(index)",
                    ] + (bare ? ["--bare"] : []), listens: false))
        }
        var held = 0
        for worker in started {
            let line = await worker.nextLine() ?? ""
            guard let match = line.firstMatch(of: /held (\d+) failed (\d+)/), let count = Int(match.1) else {
                throw ChatError.unavailable("a worker ended without holding its connections: \(line)")
            }
            held += count
        }
        return (held, started)
    }
}
