import ChatAPI
import ChatServer
import Foundation
import TestSupport

/// `Benchmarks server`: the embedded server's message fan-out and channel queries.
///
/// - Send: one device sends to a 1,000-member channel while 100 member devices are connected;
///   measured server side (events queued) and end to end (devices consume while it sends).
///   The baseline is the same sends with only the sender connected (no fan-out).
/// - Query: a filtered page of 20 sorted by last message through a connection, over 10,000,
///   100,000 and 1,000,000 channels, first page and the page after its cursor: every channel,
///   loosely and more tightly filtered channels (the sort index's walk), and the viewer's
///   channels (membership index); the baseline filters and fully sorts the same channel values
///   in memory. `Benchmarks server.queries` runs only these.
func runServerBenchmark() async {
    do {
        try await ServerBenchmark.sendThroughput()
        try await ServerBenchmark.queries()
    } catch {
        print("server benchmark failed: \(error)")
    }
}

enum ServerBenchmark {
    static let members = 1_000
    static let devices = 100
    static let messages = 2_000

    static func sendThroughput() async throws {
        print("## server — send to a \(members)-member channel, \(devices) connected devices consuming events\n")
        let (alone, aloneEvents) = try await sendRun(connectedDevices: 0, consumeWhileSending: true)
        let (serverSide, _) = try await sendRun(connectedDevices: devices, consumeWhileSending: false)
        let (endToEnd, events) = try await sendRun(connectedDevices: devices, consumeWhileSending: true)
        func row(_ name: String, _ seconds: Double, _ events: Int) -> [String] {
            [
                name, Harness.format(seconds), rate(Double(messages) / seconds), "\(events)",
                rate(Double(events) / seconds),
            ]
        }
        Harness.table(
            ["\(messages) messages", "time", "messages/s", "events", "events/s"],
            [
                row("baseline: only the sender connected", alone, aloneEvents),
                row("\(devices) devices, server side (events queued, read after)", serverSide, events),
                row("\(devices) devices consuming while sending (end to end)", endToEnd, events),
            ])
        print()
    }

    /// Sends `messages` messages as "u0" (itself connected) with `connectedDevices` other
    /// members connected, and returns the time until every device consumed every event, and
    /// the number of events consumed.
    ///
    /// With `consumeWhileSending == false` the devices start reading only after the last send,
    /// so the time is the server's alone: state change, fan-out, logging and queuing.
    private static func sendRun(connectedDevices: Int, consumeWhileSending: Bool) async throws -> (
        seconds: Double, events: Int
    ) {
        let server = ChatServer(clock: ManualClock())
        let userIds = (0..<members).map { "u\($0)" }
        try await server.createChannel(type: .community, channelId: "hall", userIds: userIds)
        let sender = server.connection(userId: "u0", deviceId: "sender")
        _ = try await sender.connect(resumingAfter: nil)
        var others: [any ChatTransport] = []
        for index in 0..<connectedDevices {
            let transport = server.connection(userId: "u\(index + 1)", deviceId: "phone")
            _ = try await transport.connect(resumingAfter: nil)
            others.append(transport)
        }
        let receivers = [sender] + others
        // The sender gets messageNew and readMarkerMoved per message; other members messageNew.
        let expected = [2 * messages] + Array(repeating: messages, count: connectedDevices)
        if !consumeWhileSending {
            let seconds = try await Harness.once { try await sendAll(from: sender) }
            return (seconds, await consumeAll(receivers, expected: expected))
        }
        var events = 0
        let seconds = try await Harness.once {
            events = try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { await consumeAll(receivers, expected: expected) }
                try await sendAll(from: sender)
                return try await group.reduce(0, +)
            }
        }
        return (seconds, events)
    }

    private static func sendAll(from sender: any ChatTransport) async throws {
        for index in 0..<messages {
            _ = try await sender.send(.sendMessage(MessageDraft(channelId: "hall", text: "message \(index)")))
        }
    }

    /// Reads `expected[i]` events from each `receivers[i]` concurrently; returns the total.
    private static func consumeAll(_ receivers: [any ChatTransport], expected: [Int]) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for (transport, count) in zip(receivers, expected) {
                group.addTask { await consume(transport, count: count) }
            }
            return await group.reduce(0, +)
        }
    }

    private static func consume(_ transport: any ChatTransport, count: Int) async -> Int {
        var received = 0
        for await element in transport.events {
            if case .event = element { received += 1 }
            if received == count { break }
        }
        return received
    }

    static func queries() async throws {
        print("## server — channel queries through a connection: a sorted page of 20\n")
        let byLastMessage = [Sorting(key: .lastMessageAt, isAscending: false)]
        let every = ChannelListQuery(filter: .all, sort: byLastMessage, pageSize: 20)
        let community = ChannelListQuery(filter: .equal(.type, to: .community), sort: byLastMessage, pageSize: 20)
        let broad = ChannelListQuery(
            filter: .and([
                .equal(.type, to: .community), .contains(.tags, value: "blue"),
                .greaterOrEqual(.metadata("score"), than: 50.0),
            ]),
            sort: byLastMessage, pageSize: 20)
        let mine = ChannelListQuery(
            filter: .and([ChannelQueryFilter.userIsMember.filter, .contains(.tags, value: "blue")]),
            sort: byLastMessage, pageSize: 20)
        // Several criteria: the first one's index is walked run by run of equal values. Names
        // are distinct, so runs are short; member counts are 1 or 2, so a run spans most channels.
        let byNameThenMembers = ChannelListQuery(
            filter: .equal(.type, to: .community),
            sort: [Sorting(key: .displayName, isAscending: true), Sorting(key: .memberCount, isAscending: false)],
            pageSize: 20)
        let byMembersThenName = ChannelListQuery(
            filter: .equal(.type, to: .community),
            sort: [Sorting(key: .memberCount, isAscending: false), Sorting(key: .displayName, isAscending: true)],
            pageSize: 20)
        let scoreEquals = ChannelListQuery(
            filter: .equal(.metadata("score"), to: .number(42)), sort: byLastMessage, pageSize: 20)
        let byId = ChannelListQuery(filter: .all, sort: [Sorting(key: .channelId, isAscending: true)], pageSize: 20)
        let queries = [
            ("every channel", every),
            ("metadata score = 42 (metadata index, 1 in 100)", scoreEquals),
            ("every channel, by channel id (id index)", byId),
            ("community", community),
            ("community, tag blue, score ≥ 50", broad),
            ("my channels with tag blue (membership index)", mine),
            ("community, by name then member count (two criteria, short runs)", byNameThenMembers),
            ("community, by member count then name (two criteria, a run of most channels)", byMembersThenName),
        ]
        let counts = [10_000, 100_000, 1_000_000]
        var rows: [[String]] = []
        var perQuery: [String: [Int: Double]] = [:]
        var perQueryBaseline: [String: [Int: Double]] = [:]
        var lastServer: ChatServer?
        for count in counts {
            var server: ChatServer?
            var viewer: (any ChatTransport)?
            let processorTime = processorSeconds()
            let populating = try await Harness.once { (server, viewer) = try await populatedServer(channels: count) }
            guard let server, let viewer else { continue }
            if count == counts.last { lastServer = server }
            let populatingProcessor = processorSeconds() - processorTime
            let plain = Harness.once { blackHole(plainPopulation(channels: count)) }
            print(
                "populated \(count) channels in \(Harness.format(populating)) (processor time \(Harness.format(populatingProcessor)); baseline, the same channels and messages as plain values in dictionaries: \(Harness.format(plain)))"
            )
            let all = everyChannel(of: server, count: count)
            // Fewer runs where a run takes seconds (the full sort at a million).
            let runs = count >= 1_000_000 ? 3 : 9
            for (name, query) in queries {
                var firstPage: Page<Channel>?
                let first: Double = try await medianAsync(runs: runs) {
                    firstPage = try await viewer.send(.queryChannels(query, after: nil)).channelsValue
                }
                let cursor = firstPage?.next
                let later: Double = try await medianAsync(runs: runs) {
                    _ = try await viewer.send(.queryChannels(query, after: cursor))
                }
                let baseline: Double = Harness.median(runs: count >= 1_000_000 ? 1 : 5, warmUp: count < 1_000_000) {
                    let matching = all.filter { query.filter.matches($0, viewerId: "viewer") }
                    blackHole(Array(matching.sorted(by: query.areInIncreasingOrder).prefix(20)))
                }
                perQuery[name, default: [:]][count] = first
                perQueryBaseline[name, default: [:]][count] = baseline
                rows.append([
                    name, "\(count)", Harness.format(first), Harness.format(later), Harness.format(baseline),
                    Harness.ratio(baseline / first),
                ])
            }
        }
        Harness.table(
            [
                "query (sorted by last message unless named)", "channels", "first page", "page after a cursor",
                "baseline: filter + full sort in memory", "baseline/ours",
            ],
            rows)
        if let server = lastServer { try await stalls(server) }
        print()
        for (name, _) in queries {
            if let small = perQuery[name]?[10_000], let large = perQuery[name]?[1_000_000],
                let baseSmall = perQueryBaseline[name]?[10_000], let baseLarge = perQueryBaseline[name]?[1_000_000]
            {
                print(
                    "growth 10,000 → 1,000,000 channels, \(name): \(Harness.ratio(large / small)) (baseline: \(Harness.ratio(baseLarge / baseSmall)))"
                )
            }
        }
        print()
    }

    /// Another user's `getChannel` (p50/p99 of 100, at most 100 a second) while a viewer runs one kind
    /// of query in a loop over the biggest server, beside the same user with nothing else going.
    static func stalls() async throws {
        let (server, _) = try await populatedServer(channels: 1_000_000)
        try await stalls(server)
    }

    private static func stalls(_ server: ChatServer) async throws {
        print("## server — another user's getChannel while a viewer queries in a loop\n")
        let other = server.connection(userId: "poster", deviceId: "latency")
        _ = try await other.connect(resumingAfter: nil)
        let scanner = server.connection(userId: "viewer", deviceId: "scanner")
        _ = try await scanner.connect(resumingAfter: nil)
        func latencies(_ count: Int) async throws -> (String, String) {
            var samples: [Double] = []
            for _ in 0..<count {
                let start = ContinuousClock.now
                _ = try await other.send(.getChannel(channelId: "ch5"))
                samples.append(Harness.seconds(ContinuousClock.now - start))
                try await Task.sleep(for: .milliseconds(10))
            }
            samples.sort()
            return (Harness.format(samples[samples.count / 2]), Harness.format(samples[samples.count * 99 / 100]))
        }
        // A channel of 30,000 members (the viewer among them), for the members query.
        let crowdSize = 29_999
        // (30,000: adding members tells every member, so seeding grows with the square of the
        // count; a members page costs the same at any size with the member order.)
        try await server.createChannel(type: .community, channelId: "crowd", userIds: ["viewer"])
        for batch in stride(from: 0, to: crowdSize, by: 1_000) {
            let fans = (batch..<min(batch + 1_000, crowdSize)).map { "fan-\($0)" }
            for fan in fans { try await server.registerUser(id: fan) }
            try await server.addMembers(fans, to: "crowd")
        }
        let loads: [(String, ChatRequest?)] = [
            ("nothing else", nil),
            (
                "metadata score = 42 (indexed)",
                .queryChannels(
                    ChannelListQuery(
                        filter: .equal(.metadata("score"), to: .number(42)),
                        sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20), after: nil)
            ),
            (
                "sorted by channel id (indexed)",
                .queryChannels(
                    ChannelListQuery(filter: .all, sort: [Sorting(key: .channelId, isAscending: false)], pageSize: 20),
                    after: nil)
            ),
            (
                "sorted by metadata score (a scan)",
                .queryChannels(
                    ChannelListQuery(
                        filter: .all, sort: [Sorting(key: .metadata("score"), isAscending: false)], pageSize: 20),
                    after: nil)
            ),
            (
                "members of a 30,000-member channel, newest first",
                .queryMembers(MemberListQuery(channelId: "crowd", sortBy: .lastCreated, pageSize: 50), after: nil)
            ),
        ]
        var rows: [[String]] = []
        for (name, request) in loads {
            let stop = ManagedFlag()
            let load = Task {
                guard let request else { return }
                while !stop.isSet { _ = try? await scanner.send(request) }
            }
            // A scan holds the lock for a second or more each: fewer samples there.
            let (p50, p99) = try await latencies(name.contains("scan") ? 20 : 100)
            stop.set()
            await load.value
            rows.append([name, p50, p99])
            print("| \(name) | \(p50) | \(p99) |")
        }
        Harness.table(["beside a viewer querying", "getChannel p50", "getChannel p99"], rows)
    }

    /// A server with `channels` channels (community and live, tags, a metadata score, a
    /// message in a third of them) and a connected "viewer" who is a member of every tenth.
    private static func populatedServer(channels: Int) async throws -> (ChatServer, any ChatTransport) {
        let clock = ManualClock()
        let server = ChatServer(clock: clock)
        try await server.registerUser(id: "viewer")
        try await server.registerUser(id: "poster", isAdmin: true)
        var random = SeededGenerator(seed: UInt64(channels))
        for index in 0..<channels {
            let tags = [["blue"], ["red"], ["blue", "green"]][index % 3]
            try await server.createChannel(
                type: index % 5 == 0 ? .live : .community, channelId: "ch\(index)",
                displayName: "Channel \(index)", userIds: index % 10 == 0 ? ["viewer", "poster"] : ["poster"],
                tags: tags,
                metadata: ["score": .number(Double(Int.random(in: 0..<100, using: &random)))])
            if index % 3 == 0 {
                clock.advance(by: 1)
                try await server.sendMessage(as: "poster", channelId: "ch\(index)", text: "hello")
            }
        }
        let viewer = server.connection(userId: "viewer", deviceId: "benchmark")
        _ = try await viewer.connect(resumingAfter: nil)
        return (server, viewer)
    }

    /// The values ``populatedServer(channels:)`` creates, kept in plain dictionaries with no rule,
    /// index or event: the floor of populating. Returns how many values it holds.
    private static func plainPopulation(channels: Int) -> Int {
        var random = SeededGenerator(seed: UInt64(channels))
        var byId: [String: Channel] = [:]
        var messages: [String: [Message]] = [:]
        for index in 0..<channels {
            let id = "ch\(index)"
            byId[id] = Channel(
                channelId: id, type: index % 5 == 0 ? .live : .community,
                metadata: ["score": .number(Double(Int.random(in: 0..<100, using: &random)))],
                tags: [["blue"], ["red"], ["blue", "green"]][index % 3], displayName: "Channel \(index)",
                memberCount: index % 10 == 0 ? 2 : 1)
            if index % 3 == 0 {
                messages[id, default: []].append(
                    Message(messageId: "m\(index)", channelId: id, sequence: 1, userId: "poster", text: "hello"))
            }
        }
        return byId.count + messages.count
    }

    /// Every channel the viewer can see, as the viewer sees it (the baseline's input).
    private static func everyChannel(of server: ChatServer, count: Int) -> [Channel] {
        (0..<count).compactMap { server.channel("ch\($0)", as: "viewer") }
    }

    /// The processor time this process has used, in seconds: timings of long single-threaded
    /// work that other load on the machine does not inflate.
    private static func processorSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func medianAsync(runs: Int, _ body: () async throws -> Void) async throws -> Double {
        try await body()
        var samples: [Double] = []
        for _ in 0..<runs { samples.append(try await Harness.once(body)) }
        return samples.sorted()[runs / 2]
    }

    private static func rate(_ perSecond: Double) -> String {
        switch perSecond {
        case 1_000_000...: String(format: "%.2f M", perSecond / 1_000_000)
        case 10_000...: String(format: "%.0f k", perSecond / 1_000)
        default: String(format: "%.0f", perSecond)
        }
    }
}
