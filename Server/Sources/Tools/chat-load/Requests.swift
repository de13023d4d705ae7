import ArgumentParser
import ChatAPI
import Foundation
import LiveChannels
import HTTPTypes
import Synchronization

/// `chat-load requests`: what one request and its answer cost over the wire. Senders (each
/// alone in a `live` channel, `--window` sends in flight each) send acknowledged messages to a
/// `chat-server` process in memory (`--dev --no-limits`), beside the request/answer floor: the
/// same clients sending the same frames to a bare Hummingbird WebSocket server in a process of
/// its own that writes each frame back to its sender (``FloorServer``'s `/echo`).
///
/// For each count of senders: answers per second, the server process's CPU per answer (user and
/// system), the load generator's own CPU per answer, and the request → answer latency, beside the
/// floor's — in the same run, the floor first. The generator shares the machine's cores with the
/// server: once they are busy, answers per second are bounded by the two processes' CPU per
/// answer together, so the share of the floor's answers/s is (floor's server + generator CPU per
/// answer) / (ours), not the servers' ratio alone.
///
/// The channels are `live` by default: only their member sees them, so a send costs its
/// answer and the sender's own two events (`messageNew`, `readMarkerMoved`). In a `community`
/// channel (`--channel-type community`) every other connected user also gets a
/// `channelUpdated` for each message (the channel is discoverable: their channel lists stay
/// live), so a send there is a fan-out to every sender connected.
struct Requests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Acknowledged sends over the wire by 1, 8 and 64 senders, beside a bare request/answer floor.")

    @Option(help: "Counts of senders, comma-separated.") var senders = "1,8,64"
    @Option(help: "Requests in flight per sender.") var window = 16
    @Option(help: "Seconds of each run.") var seconds = 5.0
    @Option(help: "The senders' channels' type: live (seen by its member only) or community (seen by all).")
    var channelType = "live"
    @Option(help: "Extra chat-server arguments (after --dev --port 0 --no-limits), space-separated.")
    var serverArguments = ""

    func run() async throws {
        let counts = senders.split(separator: ",").compactMap { Int($0) }
        guard let type = ChannelType(rawValue: channelType) else {
            throw ValidationError("--channel-type: '\(channelType)' is not a channel type")
        }
        print(
            "## requests — acknowledged sends, each sender alone in a \(type.rawValue) channel, \(window) in flight each\n"
        )
        print(
            "| senders | floor answers/s | chat-server acknowledged/s | ours / floor | server CPU per answer, floor / ours | ours / floor | load generator CPU per answer, floor / ours | p50, floor / ours | p99, floor / ours |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for count in counts {
            let floor = try await measureFloor(senders: count)
            let ours = try await measureServer(senders: count, channelType: type)
            print(
                "| \(count) | \(Int(floor.perSecond)) | \(Int(ours.perSecond)) | \(Self.ratio(ours.perSecond, floor.perSecond)) | \(Self.micro(floor.cpuPerAnswer)) / \(Self.micro(ours.cpuPerAnswer)) | \(Self.ratio(ours.cpuPerAnswer, floor.cpuPerAnswer)) | \(Self.micro(floor.generatorCPUPerAnswer)) / \(Self.micro(ours.generatorCPUPerAnswer)) | \(LoadStatistics.milliseconds(floor.p50)) / \(LoadStatistics.milliseconds(ours.p50)) | \(LoadStatistics.milliseconds(floor.p99)) / \(LoadStatistics.milliseconds(ours.p99)) |"
            )
        }
        print("")
    }

    /// The floor: `senders` connections to `/echo` in a process of its own, sending the very
    /// frames the chat-server run sends.
    private func measureFloor(senders: Int) async throws -> RequestRun {
        let process = try await ServerProcess(ServerProcess.product("chat-load"), ["idle", "--floor-server"])
        defer { process.stop() }
        var connections: [LoadSocket] = []
        for _ in 0..<senders {
            connections.append(try await LoadSocket.open("ws://127.0.0.1:\(process.port)/echo"))
        }
        let run = try await RequestRun.measure(
            process: process, connections: connections, window: window, seconds: seconds,
            frame: { sender, id in try Self.sendFrame(sender: sender, id: id) }, isAnswer: { _ in true },
            isAcknowledged: { _ in true })
        for connection in connections { await connection.close() }
        return run
    }

    /// `chat-server --dev --no-limits` in memory: `senders` users, each with a channel of its own
    /// of `channelType`.
    private func measureServer(senders: Int, channelType: ChannelType) async throws -> RequestRun {
        let extra = serverArguments.split(separator: " ").map(String.init)
        let process = try await ServerProcess(
            ServerProcess.product("chat-server"), ["--dev", "--port", "0", "--no-limits"] + extra)
        defer { process.stop() }
        var connections: [LoadSocket] = []
        for index in 0..<senders {
            let connection = try await LoadSocket.open(
                "ws://127.0.0.1:\(process.port)/v1/connect?device=load",
                headers: [.authorization: "Bearer dev:s\(index)"])
            try await connection.send(WireCodec.encode(.hello(protocolVersion: 1, resumeAfter: nil)))
            guard let welcome = await connection.nextText(), case .welcome = try WireCodec.decode(welcome) else {
                throw ChatError.unavailable("no welcome for s\(index)")
            }
            try await connection.send(
                WireCodec.encode(
                    .request(
                        id: 0,
                        request: .createChannel(ChannelDraft(type: channelType, channelId: "s\(index)", userIds: [])))
                ))
            while let text = await connection.nextText(), !FrameText.isAnswer(text) {}
            connections.append(connection)
        }
        let run = try await RequestRun.measure(
            process: process, connections: connections, window: window, seconds: seconds,
            frame: { sender, id in try Self.sendFrame(sender: sender, id: id) },
            isAnswer: FrameText.isAnswer, isAcknowledged: FrameText.isResponse)
        for connection in connections { await connection.close() }
        return run
    }

    /// Sender `sender`'s request `id`: a message into its own channel.
    static func sendFrame(sender: Int, id: Int) throws -> String {
        try WireCodec.encode(
            .request(id: id, request: .sendMessage(MessageDraft(channelId: "s\(sender)", text: "m\(id)"))))
    }

    static func ratio(_ value: Double, _ base: Double) -> String {
        base > 0 ? String(format: "%.2f×", value / base) : "—"
    }

    static func micro(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
}

/// One measured run of ``Requests``: answers per second, the server's CPU per answer, latency.
struct RequestRun: Sendable {
    var answers: Int
    var perSecond: Double
    var cpuPerAnswer: Double
    /// This process's own CPU (the clients') per answer.
    var generatorCPUPerAnswer: Double
    var p50: Double
    var p99: Double

    /// Every connection sends requests (`frame(connection, id)`, ids 0, 1, 2 … per connection)
    /// with `window` unanswered at most, for `seconds`; then waits for the last answers.
    /// `isAnswer` tells the answers among the frames received (the others — the server's
    /// events — are skipped), their first `"id":` the request's; `isAcknowledged` tells the
    /// answers counted and timed.
    static func measure(
        process: ServerProcess, connections: [LoadSocket], window: Int, seconds: Double,
        frame: @escaping @Sendable (Int, Int) throws -> String,
        isAnswer: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool,
        isAcknowledged: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
    ) async throws -> RequestRun {
        let clock = ContinuousClock()
        let cpuBefore = process.cpuSeconds
        let generatorBefore = LoadStatistics.cpuSeconds(of: getpid()) ?? 0
        let start = clock.now
        let deadline = start + .milliseconds(Int(seconds * 1_000))
        let results = try await withThrowingTaskGroup(
            of: (answers: Int, latencies: [Double], finished: ContinuousClock.Instant).self
        ) { group in
            for (index, connection) in connections.enumerated() {
                group.addTask {
                    try await send(
                        on: connection, window: window, until: deadline, clock: clock, isAnswer: isAnswer,
                        isAcknowledged: isAcknowledged
                    ) { id in try frame(index, id) }
                }
            }
            return try await group.reduce(
                into: [(answers: Int, latencies: [Double], finished: ContinuousClock.Instant)]()
            ) {
                $0.append($1)
            }
        }
        let cpu = process.cpuSeconds - cpuBefore
        let generator = (LoadStatistics.cpuSeconds(of: getpid()) ?? 0) - generatorBefore
        let finished = results.map(\.finished).max() ?? start
        let elapsedSeconds = Storage.seconds(finished - start)
        let answers = results.map(\.answers).reduce(0, +)
        let latencies = results.flatMap(\.latencies)
        return RequestRun(
            answers: answers, perSecond: Double(answers) / elapsedSeconds, cpuPerAnswer: cpu / Double(max(1, answers)),
            generatorCPUPerAnswer: generator / Double(max(1, answers)),
            p50: LoadStatistics.percentile(50, of: latencies), p99: LoadStatistics.percentile(99, of: latencies))
    }

    /// Sends on `connection` with `window` requests in flight until `deadline`, then waits for the
    /// last answers. The answers are read as they arrive, on the connection's reading task.
    private static func send(
        on connection: LoadSocket, window: Int, until deadline: ContinuousClock.Instant,
        clock: ContinuousClock, isAnswer: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool,
        isAcknowledged: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool, frame: (Int) throws -> String
    ) async throws -> (answers: Int, latencies: [Double], finished: ContinuousClock.Instant) {
        let free = Semaphore(window)
        let sentAt = Mutex<[ContinuousClock.Instant]>([])
        let tally = Mutex<(answers: Int, latencies: [Double])>((0, []))
        connection.read { bytes in
            guard isAnswer(bytes), let id = FrameText.integer(after: "\"id\":", in: bytes) else { return }
            let now = clock.now
            guard let sent = sentAt.withLock({ id >= 0 && id < $0.count ? $0[id] : nil }) else { return }
            if isAcknowledged(bytes) {
                tally.withLock { tally in
                    tally.answers += 1
                    tally.latencies.append(Storage.seconds(now - sent))
                }
            }
            free.signal()
        }
        defer { connection.stopReading() }
        var id = 0
        while clock.now < deadline {
            await free.wait()
            let text = try frame(id)
            sentAt.withLock { $0.append(clock.now) }
            try await connection.send(text)
            id += 1
        }
        // Every place of the window back: every request answered.
        for _ in 0..<window { await free.wait() }
        let finished = clock.now
        let (answers, latencies) = tally.withLock { $0 }
        return (answers, latencies, finished)
    }
}
