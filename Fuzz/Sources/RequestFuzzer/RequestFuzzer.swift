// The structured fuzzer of requests: every request kind (and every console call) with extreme
// values — 0, −1, huge, Int.max, 2^53, NaN, ±∞, empty and very long strings, deep metadata —
// through the devices of a server on the system clock (its wake-up timer armed for real; moved
// forward between batches by `JumpingClock`) with SQLite storage; after each batch the server
// is closed and reopened from its file, which arms the next stored deadline again.
//
// A finding is a trap (the process dies; the batch that did it is in the log file), a request
// whose wire form does not come back equal, a server that cannot reopen its own file, or one
// that stops answering. Deterministic requests for a seed: rerun with `--seed` to replay.
//
//   swift run -c release --package-path Fuzz RequestFuzzer --requests 1000000
//   scripts/fuzz-requests --requests 20000        # what CI runs
import ChatAPI
import ChatServer
import Foundation

/// The run's settings, from the command line.
struct FuzzSettings {
    var requests = 20_000
    var batch = 2_000
    var seed = UInt64.random(in: 1...UInt64(UInt32.max))
    var log = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("request-fuzzer-batch.log")

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { Self.usage("\(flag) needs a value") }
            switch flag {
            case "--requests": requests = Self.number(value, flag)
            case "--batch": batch = max(1, Self.number(value, flag))
            case "--seed": seed = UInt64(Self.number(value, flag))
            case "--log": log = URL(fileURLWithPath: value)
            default: Self.usage("unknown option \(flag)")
            }
        }
    }

    static func number(_ text: String, _ flag: String) -> Int {
        guard let value = Int(text), value >= 0 else { usage("\(flag) takes a number (0 or more)") }
        return value
    }

    static func usage(_ problem: String) -> Never {
        FileHandle.standardError.write(
            Data(
                "RequestFuzzer: \(problem)\nusage: RequestFuzzer [--requests N] [--batch N] [--seed S] [--log FILE]\n"
                    .utf8))
        exit(2)
    }
}

/// Counts what the run did.
struct FuzzTally {
    var requests = 0
    var consoleCalls = 0
    var answered = 0
    var refused: [String: Int] = [:]
    var reopens = 0
    var encodable = 0
}

enum Finding: Error, CustomStringConvertible {
    case roundTrip(ChatRequest)
    case reopen(ChatError)
    case unresponsive(String)

    var description: String {
        switch self {
        case .roundTrip(let request): "a request's wire form does not decode to it: \(request)"
        case .reopen(let error): "the server cannot reopen its own file: \(error)"
        case .unresponsive(let what): "the server stopped answering: \(what)"
        }
    }
}

/// The devices requests come from: alice (an admin), bob and carol, two devices of alice.
let devices = [("alice", "phone"), ("alice", "laptop"), ("bob", "phone"), ("carol", "phone")]

/// Connects the devices; their events are taken as they come (so no connection is cut for
/// falling behind) by the returned tasks, which the caller cancels when the batch ends: a
/// transport's event stream spans its connections and never ends by itself, so a task left
/// reading it would keep the closed server, and all its state, in memory.
func connectDevices(of server: ChatServer) async throws -> ([any ChatTransport], [Task<Void, Never>]) {
    var transports: [any ChatTransport] = []
    var readers: [Task<Void, Never>] = []
    for (user, device) in devices {
        let transport = server.connection(userId: user, deviceId: device)
        _ = try await transport.connect(resumingAfter: nil)
        readers.append(Task { for await _ in transport.events {} })
        transports.append(transport)
    }
    return (transports, readers)
}

/// The users of the scene.
func registerUsers(on server: ChatServer) async throws {
    _ = try await server.registerUser(id: "alice", displayName: "Alice", isAdmin: false)
    for user in ["bob", "carol"] { _ = try await server.registerUser(id: user) }
}

/// A batch's channels (`channels`: c0, c1, general under the batch's names): c0 made by alice,
/// so that she moderates it and the moderation requests reach their rules, with a message; c1
/// a community of alice and bob; general a standard channel of all three.
func makeChannels(_ channels: [String], on server: ChatServer) async throws {
    let alice = server.connection(userId: "alice", deviceId: "setup")
    _ = try await alice.connect(resumingAfter: nil)
    _ = try await alice.send(
        .createChannel(ChannelDraft(type: .community, channelId: channels[0], userIds: ["bob", "carol"])))
    _ = try await alice.send(.sendMessage(MessageDraft(channelId: channels[0], text: "first")))
    await alice.disconnect()
    try await server.createChannel(type: .community, channelId: channels[1], userIds: ["alice", "bob"])
    try await server.createChannel(type: .standard, channelId: channels[2], userIds: ["alice", "bob", "carol"])
}

/// Writes a line to standard output at once (progress shows as it happens, also in a file).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

@main
enum RequestFuzzer {
    static func main() async {
        let settings = FuzzSettings(arguments: CommandLine.arguments)
        say("RequestFuzzer: seed \(settings.seed), \(settings.requests) requests in batches of \(settings.batch)")
        say("RequestFuzzer: each batch is logged to \(settings.log.path) before it runs")
        let started = Date()
        do {
            let tally = try await run(settings)
            let seconds = Date().timeIntervalSince(started)
            let refusals = tally.refused.sorted { $0.value > $1.value }.prefix(8).map { "\($0.key) \($0.value)" }
            say(
                "RequestFuzzer: \(tally.requests) requests (\(tally.encodable) round-tripped through the wire codec), "
                    + "\(tally.consoleCalls) console calls, \(tally.answered) answered, \(tally.reopens) reopens "
                    + "in \(Int(seconds)) s; no finding")
            say("RequestFuzzer: most frequent refusals: \(refusals.joined(separator: ", "))")
            say("1 passed, 0 failed")
        } catch {
            say("RequestFuzzer: FINDING with seed \(settings.seed): \(error)")
            say("0 passed, 1 failed")
            exit(1)
        }
    }

    static func run(_ settings: FuzzSettings) async throws -> FuzzTally {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "request-fuzzer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("server.sqlite")
        var generator = RequestGenerator(values: ExtremeValues(random: SplitMix64(seed: settings.seed)))
        var tally = FuzzTally()
        let clock = JumpingClock()
        var server = try ChatServer(clock: clock, storage: .sqlite(file))
        try await registerUsers(on: server)
        var batchNumber = 0
        while tally.requests < settings.requests {
            batchNumber += 1
            generator.values.channels =
                batchNumber == 1
                ? ["c0", "c1", "general"] : ["c0-\(batchNumber)", "c1-\(batchNumber)", "general-\(batchNumber)"]
            try await registerUsers(on: server)  // alice may have been made an admin
            try await makeChannels(generator.values.channels, on: server)
            let (transports, readers) = try await connectDevices(of: server)
            defer { for reader in readers { reader.cancel() } }
            var log = "seed \(settings.seed) batch \(batchNumber)\n"
            let count = min(settings.batch, settings.requests - tally.requests)
            var batch:
                [(device: Int, request: ChatRequest?, console: (String, @Sendable (ChatServer) async throws -> Void)?)] =
                    []
            for _ in 0..<count {
                if generator.values.chance(5) {
                    let call = generator.consoleCall()
                    log += "console \(call.0)\n"
                    batch.append((0, nil, call))
                } else {
                    let device = generator.values.int(0..<transports.count)
                    let request = generator.request()
                    log += "\(devices[device]) \(String(describing: request).prefix(2_000))\n"
                    batch.append((device, request, nil))
                }
            }
            // Written before the batch runs: a trap leaves it behind.
            try Data(log.utf8).write(to: settings.log)
            for item in batch {
                if let (_, call) = item.console {
                    tally.consoleCalls += 1
                    do {
                        try await call(server)
                        tally.answered += 1
                    } catch let error as ChatError {
                        tally.refused[error.tallyName, default: 0] += 1
                    }
                    continue
                }
                guard let request = item.request else { continue }
                tally.requests += 1
                if let text = try? WireCodec.encode(.request(id: tally.requests, request: request)) {
                    tally.encodable += 1
                    guard case .request(_, let decoded)? = try? WireCodec.decode(text), decoded == request else {
                        throw Finding.roundTrip(request)
                    }
                }
                do {
                    let envelope = try await transports[item.device].send(request)
                    tally.answered += 1
                    collectCursor(from: envelope.response, into: &generator)
                } catch let error as ChatError {
                    tally.refused[error.tallyName, default: 0] += 1
                }
            }
            // Still answering, then closed and reopened from the file: every stored deadline is
            // armed again.
            do {
                _ = try await transports[0].send(.getUser(userId: "alice"))
            } catch {
                throw Finding.unresponsive("\(error)")
            }
            await server.close()
            // Time moves on before the reopen: what was due comes due, and the next deadline
            // (however far) is armed.
            let jump = generator.values.pick([0, 1, 86_400, 31_536_000, 347_000_000] as [TimeInterval])
            clock.jump(by: jump)
            log += "jumped \(Int(jump)) s\n"
            try Data(log.utf8).write(to: settings.log)
            do {
                server = try ChatServer(clock: clock, storage: .sqlite(file))
            } catch {
                throw Finding.reopen(error)
            }
            tally.reopens += 1
            if batchNumber % 10 == 0 || tally.requests >= settings.requests {
                say("RequestFuzzer: \(tally.requests) requests, \(tally.reopens) reopens")
            }
        }
        await server.close()
        return tally
    }

    static func collectCursor(from response: ChatResponse, into generator: inout RequestGenerator) {
        let next: PageCursor? =
            switch response {
            case .channels(let page): page.next
            case .memberPage(let page): page.next
            case .users(let page): page.next
            default: nil
            }
        if let next, generator.cursors.count < 64 { generator.cursors.append(next) }
    }
}

extension ChatError {
    /// The error's case and field, for the run's summary.
    var tallyName: String {
        switch self {
        case .invalidArgument(let field, _): "invalidArgument(\(field))"
        default: String(describing: self).prefix { $0 != ":" && $0 != "(" }.description
        }
    }
}
