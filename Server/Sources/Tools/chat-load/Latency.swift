import ArgumentParser
import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO

/// Send → receive latency between two members at a fixed rate, then at the maximum rate, beside
/// the same exchange through the bare broadcast floor. With `--members N`, the channel has N
/// members, all connected and reading (the floor broadcasts to as many connections): latency
/// under fan-out load, one receiver measured.
///
/// With `--processes`, each server also runs as a process of its own — `chat-server --dev
/// --no-limits` in memory and the floor (`chat-load idle --floor-server`) — measured by the same
/// clients in the same run, beside the servers in this process.
struct Latency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send → receive latency percentiles, beside a bare broadcast.")

    @Option(help: "Messages per second of the paced run.") var rate = 1_000
    @Option(help: "Seconds of each run.") var seconds = 5.0
    @Option(help: "Members of the channel, all connected and reading (the two measured among them).")
    var members = 2
    @Flag(help: "Also measure chat-server and the floor as processes of their own.") var processes = false

    func run() async throws {
        let clock = ContinuousClock()
        let origin = clock.now
        for (label, paced) in [("\(rate) msg/s", true), ("maximum rate", false)] {
            let floor = try await withServices(FloorServer().services(onRunning:)) { port in
                try await measureFloor(port: port, paced: paced, origin: origin)
            }
            let others = (2..<max(2, members)).map { "m\($0)" }
            let ours = try await withGateway { port in
                try await measureServer(port: port, paced: paced, origin: origin, members: others)
            }
            print("latency at \(label)\(members > 2 ? " into a \(members)-member channel" : ""):")
            print(Self.line("floor (bare broadcast)", floor))
            print(Self.line("chat-server", ours))
            guard processes else { continue }
            let floorProcess = try await ServerProcess(ServerProcess.product("chat-load"), ["idle", "--floor-server"])
            let floorApart = try await measureFloor(port: floorProcess.port, paced: paced, origin: origin)
            floorProcess.stop()
            let serverProcess = try await ServerProcess(
                ServerProcess.product("chat-server"), ["--dev", "--port", "0", "--no-limits"])
            let oursApart = try await measureServer(
                port: serverProcess.port, paced: paced, origin: origin, members: others)
            serverProcess.stop()
            print(Self.line("floor (bare broadcast), a process of its own", floorApart))
            print(Self.line("chat-server, a process of its own", oursApart))
        }
    }

    /// The floor at `port`: a sender, a receiver and the other members' connections.
    private func measureFloor(port: Int, paced: Bool, origin: ContinuousClock.Instant) async throws -> (
        latencies: [Double], seconds: Double
    ) {
        let sender = try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast")
        let receiver = try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast")
        var others: [any WebSocketConnection] = []
        for _ in 2..<max(2, members) { others.append(try await NIOConnect.open("ws://127.0.0.1:\(port)/broadcast")) }
        let draining = Self.drain(others)
        defer { draining.cancel() }
        return try await Self.measure(
            paced: paced, rate: rate, seconds: seconds, origin: origin, sender: sender, receiver: receiver,
            isAnswer: { _ in true }
        ) { stamp, _ in "t=\(stamp)" }
    }

    /// A `chat-server` at `port`: a creates `room` with b and `members` and sends; b receives;
    /// `members` connected and reading.
    private func measureServer(
        port: Int, paced: Bool, origin: ContinuousClock.Instant, members: [String]
    ) async throws -> (latencies: [Double], seconds: Double) {
        let sender = try await RawClient.connect(port: port, user: "a")
        let receiver = try await RawClient.connect(port: port, user: "b")
        _ = try await sender.request(
            .createChannel(ChannelDraft(type: .community, channelId: "room", userIds: ["b"] + members)))
        var connections: [any WebSocketConnection] = []
        for user in members { connections.append(try await RawClient.connect(port: port, user: user).connection) }
        let draining = Self.drain(connections)
        defer { draining.cancel() }
        return try await Self.measure(
            paced: paced, rate: rate, seconds: seconds, origin: origin, sender: sender.connection,
            receiver: receiver.connection, isAnswer: FrameText.isAnswer
        ) { stamp, index in
            try WireCodec.encode(
                .request(id: index, request: .sendMessage(MessageDraft(channelId: "room", text: "t=\(stamp)"))))
        }
    }

    /// Reads every frame of `connections` until cancelled (then closes them): members that keep
    /// up, so the server's and the floor's fan-out is real.
    static func drain(_ connections: [any WebSocketConnection]) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for connection in connections {
                    group.addTask {
                        await withTaskCancellationHandler {
                            for await _ in connection.inbound {}
                        } onCancel: {
                            Task { await connection.close(code: 1000, reason: "") }
                        }
                    }
                }
            }
        }
    }

    static func line(_ name: String, _ result: (latencies: [Double], seconds: Double)) -> String {
        let p50 = LoadStatistics.percentile(50, of: result.latencies)
        let p99 = LoadStatistics.percentile(99, of: result.latencies)
        return
            "  \(name): \(result.latencies.count) messages, \(LoadStatistics.rate(result.latencies.count, result.seconds)), p50 \(LoadStatistics.milliseconds(p50)), p99 \(LoadStatistics.milliseconds(p99))"
    }

    /// Sends for `seconds` (paced at `rate`, or as fast as a window of 64 unanswered frames
    /// allows — `isAnswer` tells the sender's answers), each frame stamped with its send time;
    /// the receiver records when each stamp arrives.
    static func measure(
        paced: Bool, rate: Int, seconds: Double, origin: ContinuousClock.Instant, sender: any WebSocketConnection,
        receiver: any WebSocketConnection,
        isAnswer: @escaping @Sendable (String) -> Bool, frame: @escaping @Sendable (Int64, Int) throws -> String
    ) async throws -> (latencies: [Double], seconds: Double) {
        let clock = ContinuousClock()
        func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
            let elapsed = instant - origin
            return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        }
        // Drain the sender's own frames (its echo, its answers), so they never back up; each
        // answer frees a place in the window.
        let window = Semaphore(64)
        let drain = Task {
            for await item in sender.inbound {
                if case .text(let text) = item, isAnswer(text) { window.signal() }
            }
        }
        defer { drain.cancel() }
        let receiving = Task { () -> [Double] in
            var latencies: [Double] = []
            for await item in receiver.inbound {
                guard case .text(let text) = item, let stamp = FrameText.stamp(in: text) else { continue }
                if stamp < 0 { break }
                latencies.append(Double(nanoseconds(clock.now) - stamp) / 1e9)
            }
            return latencies
        }
        let start = clock.now
        let end = start + .milliseconds(Int(seconds * 1_000))
        var index = 0
        while clock.now < end {
            if paced {
                let due = start + .nanoseconds(Int64(index) * 1_000_000_000 / Int64(rate))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            } else {
                await window.wait()
            }
            try await sender.send(try frame(nanoseconds(clock.now), index))
            index += 1
        }
        // The end marker: a negative stamp.
        try await sender.send(try frame(-1, index))
        let latencies = await receiving.value
        let elapsed = clock.now - start
        await sender.close(code: 1000, reason: "")
        await receiver.close(code: 1000, reason: "")
        return (latencies, Storage.seconds(elapsed))
    }
}
