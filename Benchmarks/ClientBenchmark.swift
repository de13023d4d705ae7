import ChatAPI
import ChatServer
import Foundation
@_spi(Benchmarks) import LiveChannels
import TestSupport

/// `Benchmarks client`: live-query maintenance in the client cache, the end-to-end message
/// path, and the derived unread total.
enum ClientBenchmark {
    static func run() async {
        do {
            try await liveQueries()
            try await endToEnd()
            unreadTotal()
        } catch {
            print("client benchmark failed: \(error)")
        }
    }

    // MARK: Live query maintenance

    static let tagNames = ["red", "green", "blue", "gold", "gray"]

    /// The server's visibility rule for a user who is not an admin: what a list may show.
    static func isVisible(_ channel: Channel) -> Bool {
        switch channel.type {
        case .community, .broadcast, .standard: true
        case .live, .private: channel.currentUserMembership != .none
        case .conversation: channel.currentUserMembership == .member
        }
    }

    static func randomChannel(_ index: Int, using generator: inout SeededGenerator) -> Channel {
        let types: [ChannelType] = [.community, .community, .live, .broadcast, .conversation]
        return Channel(
            channelId: String(format: "ch%06d", index),
            type: types.randomElement(using: &generator)!,
            metadata: ["score": .number(Double(Int.random(in: 0..<100, using: &generator)))],
            tags: [tagNames.randomElement(using: &generator)!],
            displayName: "Channel \(Int.random(in: 0..<1_000_000, using: &generator))",
            memberCount: Int.random(in: 1..<500, using: &generator),
            createdAt: Date(timeIntervalSince1970: Double(index)),
            lastMessageAt: Date(timeIntervalSince1970: Double.random(in: 0..<1_000_000, using: &generator)),
            lastSequence: Int.random(in: 0..<50, using: &generator),
            currentUserMembership: Int.random(in: 0..<50, using: &generator) == 0 ? .member : .none)
    }

    /// 100 queries with different filters and sorts.
    static func queries() -> [ChannelListQuery] {
        let sorts: [[Sorting]] = [
            [Sorting(key: .lastMessageAt, isAscending: false)], [Sorting(key: .memberCount, isAscending: false)],
            [Sorting(key: .displayName, isAscending: true)], [Sorting(key: .createdAt, isAscending: true)],
            [Sorting(key: .metadata("score"), isAscending: false)],
        ]
        let types: [ChannelType] = [.community, .live, .broadcast, .conversation]
        var result: [ChannelListQuery] = []
        for index in 0..<100 {
            let filter: Filter =
                switch index % 5 {
                case 0: .equal(.type, to: types[index / 5 % types.count])
                case 1:
                    .and([
                        .contains(.tags, value: tagNames[index / 5 % tagNames.count]),
                        .greater(.memberCount, than: index),
                    ])
                case 2: .equal(.joined, to: true)
                case 3: .greaterOrEqual("score", than: .number(Double(index % 100)))
                default: .and([.equal(.type, to: .community), .notIn(.tags, values: [tagNames[index % 5]])])
                }
            result.append(
                ChannelListQuery(filter: filter, sort: sorts[index / 20 % sorts.count], pageSize: 20 + index % 30))
        }
        return result
    }

    static func liveQueries() async throws {
        let channelCount = 100_000
        let updateCount = 100_000
        var generator = SeededGenerator(seed: 2026)
        var channels = (0..<channelCount).map { randomChannel($0, using: &generator) }
        let transport = ScriptedTransport(userId: "me", channels: channels)
        let client = ChatClient(transport: transport)
        try await client.connect()
        let memoryStart = MemoryProbe.allocatedBytes()
        // Fill the cache: every channel arrives once as an event.
        for (index, channel) in channels.enumerated() { transport.update(channel, at: index) }
        await client.synchronize()
        let memoryCached = MemoryProbe.allocatedBytes()

        let repository = ChannelRepository(client: client)
        let lists = queries().map { repository.getChannels(query: $0) }
        for list in lists {
            for await update in list.updates where update.loadingStatus == .loaded { break }
        }
        let memoryListed = MemoryProbe.allocatedBytes()
        // Every list observed, as an app would.
        let sink = Sink()
        let tokens = lists.map { list in
            list.observe(on: .synchronous) { _, change, _ in sink.note(change?.count ?? 0, 0) }
        }

        // The updates: new messages, member counts, tags, membership, scores.
        var updates: [(Int, Channel)] = []
        updates.reserveCapacity(updateCount)
        for _ in 0..<updateCount {
            let index = Int.random(in: 0..<channelCount, using: &generator)
            var channel = channels[index]
            switch Int.random(in: 0..<5, using: &generator) {
            case 0, 1:
                channel.lastSequence += 1
                channel.lastMessageAt = Date(timeIntervalSince1970: 1_000_000 + Double(updates.count))
            case 2: channel.memberCount = Int.random(in: 1..<500, using: &generator)
            case 3: channel.tags = [tagNames.randomElement(using: &generator)!]
            default:
                channel.currentUserMembership = channel.currentUserMembership == .member ? .none : .member
            }
            channels[index] = channel
            updates.append((index, channel))
        }
        // Baseline: re-filter, re-sort and diff every list for one update, from the state the
        // client has now (its channels as the transport holds them, its lists' windows).
        let queryList = queries()
        func naiveCost(applying update: (Int, Channel)) -> Double {
            var cache = Dictionary(
                uniqueKeysWithValues: (0..<channelCount).map { index in
                    let channel = transport.channel(at: index)
                    return (channel.channelId, channel)
                })
            var previous = lists.map(\.snapshots)
            return Harness.once {
                cache[update.1.channelId] = update.1
                for (position, query) in queryList.enumerated() {
                    let window = max(previous[position].count, 1)
                    let items = cache.values.filter { isVisible($0) && query.filter.matches($0, viewerId: "me") }
                        .map { (query.sortKey(for: $0), $0) }.sorted { $0.0 < $1.0 }.prefix(window).map(\.1)
                    blackHole(CollectionChange(from: previous[position], to: items))
                    previous[position] = items
                }
            }
        }

        // Timed in slices, to show the cost after 10,000 and after 100,000 updates (each beside
        // the baseline's cost for one update at that point).
        var slices: [Double] = []
        var naiveAfterTenThousand: Double?
        let sliceSize = 1_000
        for start in stride(from: 0, to: updates.count, by: sliceSize) {
            if start == 10 * sliceSize - sliceSize { naiveAfterTenThousand = naiveCost(applying: updates[start]) }
            slices.append(
                await Harness.once {
                    for (index, channel) in updates[start..<min(start + sliceSize, updates.count)] {
                        transport.update(channel, at: index)
                    }
                    await client.synchronize()
                })
        }
        let ours = slices.reduce(0, +)
        let afterTenThousand = slices[9] / Double(sliceSize)
        let atTheEnd = slices[slices.count - 1] / Double(sliceSize)
        let windowTotal = lists.reduce(0) { $0 + $1.count }
        let memoryAfter = MemoryProbe.allocatedBytes()

        let sample = 1
        let naive = naiveCost(applying: updates[0])

        // Correctness: each live list equals the naive answer over the same window.
        var mismatches = 0
        let final = Dictionary(uniqueKeysWithValues: channels.map { ($0.channelId, $0) })
        for (list, query) in zip(lists, queryList) {
            let expected = final.values.filter { isVisible($0) && query.filter.matches($0, viewerId: "me") }
                .map { (query.sortKey(for: $0), $0) }.sorted { $0.0 < $1.0 }.prefix(list.count).map(\.1)
            if Array(expected) != list.snapshots { mismatches += 1 }
        }
        tokens.forEach { $0.invalidate() }

        let perUpdate = ours / Double(updateCount)
        print("## client — live query maintenance: 100,000 cached channels, 100 live lists, \(updateCount) updates\n")
        Harness.table(
            ["", "per update (all 100 lists)", "updates/s", "ratio"],
            [
                [
                    "LiveChannels: incremental (event → cache → lists → observers)", Harness.format(perUpdate),
                    rate(1 / perUpdate), Harness.ratio(naive / perUpdate),
                ],
                [
                    "baseline: re-filter, re-sort, diff every list (\(sample) updates)", Harness.format(naive),
                    rate(1 / naive), "1.0×",
                ],
            ])
        print()
        Harness.table(
            [
                "per update (all 100 lists), by when", "time",
                "baseline: re-filter, re-sort, diff every list (one update then)", "ratio",
            ],
            [
                [
                    "updates 9,001–10,000", Harness.format(afterTenThousand),
                    naiveAfterTenThousand.map(Harness.format) ?? "—",
                    naiveAfterTenThousand.map { Harness.ratio($0 / afterTenThousand) } ?? "—",
                ],
                [
                    "updates 99,001–100,000", Harness.format(atTheEnd), Harness.format(naive),
                    Harness.ratio(naive / atTheEnd),
                ],
            ])
        print("\nitems in the 100 windows at the end: \(windowTotal) (largest \(lists.map(\.count).max() ?? 0))")
        if let start = memoryStart, let cached = memoryCached, let listed = memoryListed, let after = memoryAfter {
            print(
                "resident memory: \((cached - start) / channelCount) bytes per cached channel; \((listed - cached) / lists.count / 1024) KB per live list as loaded; \((after - listed) / 1_048_576) MB more after the updates (windows grew to \(windowTotal) items)"
            )
        }
        print("\nlists equal to a from-scratch recomputation: \(lists.count - mismatches)/\(lists.count)\n")
        blackHole(sink.total)
    }

    // MARK: End to end

    /// A server with alice and bob in the community channel "room" (bob created it), and
    /// alice's joined channels.
    static func room(on server: ChatServer) async throws -> (alice: any ChatTransport, bob: any ChatTransport) {
        let alice = server.connection(userId: "alice", deviceId: "phone")
        let bob = server.connection(userId: "bob", deviceId: "phone")
        _ = try await alice.connect(resumingAfter: nil)
        _ = try await bob.connect(resumingAfter: nil)
        var draft = ChannelDraft(type: .community, channelId: "room")
        draft.userIds = ["alice"]
        _ = try await bob.send(.createChannel(draft))
        return (alice, bob)
    }

    /// Alice's client on `transport`: the joined channels sorted by last message, observed (a
    /// row showing the room's unread count), and the total unread count.
    static func observedClient(_ transport: any ChatTransport) async throws -> (
        ChatClient, LiveObject<Int>, NotificationToken, Sink
    ) {
        let client = ChatClient(transport: transport)
        try await client.connect()
        let repository = ChannelRepository(client: client)
        let list = repository.getChannels(
            query: ChannelListQuery(filter: .equal(.joined, to: true), sort: [Sorting(key: .lastMessageAt)]))
        for await update in list.updates where update.loadingStatus == .loaded { break }
        let sink = Sink()
        let token = list.observe(on: .synchronous) { collection, _, _ in
            sink.note(collection.object(at: 0)?.unreadCount ?? 0, 0)
        }
        return (client, repository.getTotalUnreadCount(), token, sink)
    }

    /// Sends `count` messages from `sender`, `inFlight` at a time (each sender task waits for its
    /// answer before the next).
    static func send(_ count: Int, from sender: any ChatTransport, inFlight: Int, offset: Int = 0) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<inFlight {
                group.addTask {
                    for index in stride(from: lane, to: count, by: inFlight) {
                        _ = try await sender.send(
                            .sendMessage(MessageDraft(channelId: "room", text: "m\(offset + index)")))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The end-to-end path per stage, each stage measured alone in the same run:
    /// - server: `sendMessage` handled (state, fan-out to both members' streams, the answer),
    ///   with nobody consuming events;
    /// - client: the same `messageNew` events applied to a client (cache, live list, unread
    ///   total, a synchronous observer) one hop each, and in bursts of 64;
    /// - end to end: request → server → event → alice's client, one send in flight (each waits
    ///   for its answer) and 32 in flight.
    static func endToEnd() async throws {
        let messages = 20_000
        let rounds = 5

        // Server alone: both members' events are taken off their streams as they come (alice's
        // kept for the client stage), doing nothing else with them.
        func serverWithReaders(inFlight: Int) async throws -> (seconds: Double, captured: [EventEnvelope]) {
            let server = ChatServer()
            let (aliceLink, bobLink) = try await room(on: server)
            let collector = Task {
                var captured: [EventEnvelope] = []
                for await item in aliceLink.events {
                    guard case .event(let envelope) = item, case .messageNew = envelope.event else { continue }
                    captured.append(envelope)
                    if captured.count == messages { break }
                }
                return captured
            }
            let drain = Task { for await _ in bobLink.events {} }
            let seconds = try await Harness.once { try await send(messages, from: bobLink, inFlight: inFlight) }
            let captured = await collector.value
            drain.cancel()
            return (seconds, captured)
        }
        let captured = try await serverWithReaders(inFlight: 1).captured
        var serverOnly: [Double] = []
        var serverPipelined: [Double] = []
        var serverQuiet: [Double] = []
        for _ in 0..<rounds {
            serverOnly.append(try await serverWithReaders(inFlight: 1).seconds)
            serverPipelined.append(try await serverWithReaders(inFlight: 32).seconds)
            serverQuiet.append(try await serverWithoutWakeUps(messages))
        }

        // Client alone: the captured events, as the transport would deliver them.
        func applied(burst: Int) async throws -> Double {
            guard case .messageNew(_, let room)? = captured.first?.event,
                case .messageNew(_, let last)? = captured.last?.event
            else {
                throw ChatError.unavailable("no messageNew event was captured")
            }
            let (client, total, token, _) = try await observedClient(
                ScriptedTransport(userId: "alice", channels: [room]))
            let seconds = await Harness.once {
                for start in stride(from: 0, to: captured.count, by: burst) {
                    await client.applyEvents(Array(captured[start..<min(start + burst, captured.count)]))
                }
            }
            precondition(total.snapshot == last.unreadCount, "the client lost count: \(total.snapshot ?? -1)")
            token.invalidate()
            return seconds
        }
        var clientSingly: [Double] = []
        var clientBursts: [Double] = []
        for _ in 0..<rounds {
            clientSingly.append(try await applied(burst: 1))
            clientBursts.append(try await applied(burst: 64))
        }

        // End to end.
        func endToEnd(inFlight: Int) async throws -> Double {
            let server = ChatServer()
            let (aliceLink, bobLink) = try await room(on: server)
            await aliceLink.disconnect()
            let (_, total, token, _) = try await observedClient(server.connection(userId: "alice", deviceId: "phone"))
            // The end is noticed by a synchronous observer of the total (as a badge would be),
            // which signals once: waiting costs nothing per message.
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            let watcher = total.observe(on: .synchronous) { object, _ in
                if object.snapshot == messages { signal.yield(); signal.finish() }
            }
            let seconds = try await Harness.once {
                try await send(messages, from: bobLink, inFlight: inFlight)
                for await _ in reached { break }
            }
            watcher.invalidate()
            token.invalidate()
            return seconds
        }
        var sequential: [Double] = []
        var pipelined: [Double] = []
        for _ in 0..<rounds {
            sequential.append(try await endToEnd(inFlight: 1))
            pipelined.append(try await endToEnd(inFlight: 32))
        }

        // The floor of any in-process path: a bare request/answer round trip between two tasks
        // (what the sender's await costs), the event's own hop on an AsyncStream aside.
        var floor: [Double] = []
        for _ in 0..<rounds {
            floor.append(
                await Harness.once {
                    let (requests, requester) = AsyncStream.makeStream(of: CheckedContinuation<Int, Never>.self)
                    let server = Task {
                        var count = 0; for await answer in requests { count += 1; answer.resume(returning: count) }
                    }
                    for _ in 0..<messages { blackHole(await withCheckedContinuation { requester.yield($0) }) }
                    requester.finish()
                    await server.value
                })
        }

        print("## client — end to end: request → server → event → cache → live list + unread total → observer\n")
        print(
            "\(messages) messages from bob to alice in a 2-member channel; alice's client shows her channels (a live list, observed) "
                + "and the total unread count. Each row is measured \(rounds) times, interleaved with the others.\n")
        func row(_ name: String, _ samples: [Double]) -> [String] {
            let sorted = samples.sorted()
            let median = sorted[sorted.count / 2]
            return [
                name, Harness.format(median / Double(messages)), rate(Double(messages) / median),
                "\(rate(Double(messages) / sorted[sorted.count - 1]))–\(rate(Double(messages) / sorted[0]))",
            ]
        }
        Harness.table(
            ["stage", "per message (median)", "messages/s (median)", "messages/s (slowest–fastest round)"],
            [
                row(
                    "server: sendMessage handled, 1 in flight (both members' events taken off as they come)", serverOnly
                ),
                row("server: sendMessage handled, 32 in flight", serverPipelined),
                row(
                    "server: sendMessage handled, 1 in flight, no reader woken (events taken off between batches)",
                    serverQuiet),
                row("client: its messageNew events applied, one hop each", clientSingly),
                row("client: the same events applied in bursts of 64", clientBursts),
                row("end to end, 1 in flight (each send waits for its answer)", sequential),
                row("end to end, 32 in flight", pipelined),
                row("floor: a bare request/answer round trip between two tasks", floor),
            ])
        print()
    }

    /// The server alone, without waking anyone: `messages` sends from bob, one in flight, into
    /// the 2-member room; the events are taken off between batches of 1,000 sends, so no reader
    /// is parked when they come. The server's own work per message (seconds, all of them).
    static func serverWithoutWakeUps(_ messages: Int) async throws -> Double {
        let server = ChatServer()
        let (alice, bob) = try await room(on: server)
        var aliceEvents = alice.events.makeAsyncIterator()
        var bobEvents = bob.events.makeAsyncIterator()
        var seconds = 0.0
        for batch in 0..<(messages / 1_000) {
            seconds += try await Harness.once { try await send(1_000, from: bob, inFlight: 1, offset: batch * 1_000) }
            for _ in 0..<1_000 {
                _ = await aliceEvents.next()
                _ = await bobEvents.next()
            }
        }
        return seconds
    }

    /// `Benchmarks client.server`: ``serverWithoutWakeUps(_:)`` five times, the spread printed.
    static func serverAlone() async throws {
        var rounds: [Double] = []
        for _ in 0..<5 { rounds.append(try await serverWithoutWakeUps(20_000) / 20_000) }
        rounds.sort()
        print(
            "server alone (sendMessage, 2-member channel, no reader woken), 5 rounds of 20,000: "
                + "min \(Harness.format(rounds[0])), median \(Harness.format(rounds[2])), max \(Harness.format(rounds[4])) per message"
        )
    }

    // MARK: Unread total

    static func unreadTotal() {
        let channels = 10_000
        let events = 1_000_000
        var generator = SeededGenerator(seed: 7)
        let keys = (0..<channels).map { String(format: "ch%05d", $0) }
        let script = (0..<events).map { _ in Int.random(in: 0..<channels, using: &generator) }
        let sink = Sink()

        /// Runs the script through a fresh tally; with `observed`, a synchronous observer (a UI
        /// badge) is called on every change.
        func incremental(observed: Bool) -> Double {
            let tally = LiveTally<String, Int>()
            tally.set(keys.map { ($0, Int?.some(0)) })
            var counts = [Int](repeating: 0, count: channels)
            let token =
                observed
                ? tally.object.observe(on: .synchronous) { object, _ in sink.note(object.snapshot ?? 0, 0) } : nil
            let seconds = Harness.once {
                for index in script {
                    counts[index] += 1
                    tally.set(counts[index], for: keys[index])
                }
            }
            token?.invalidate()
            precondition(tally.total == events, "the tally lost count")
            return seconds / Double(events)
        }

        /// The same live total re-summed over every channel on each event (sampled).
        func resum(observed: Bool) -> Double {
            let resummed = LiveObjectSource<Int>(snapshot: 0)
            let token =
                observed
                ? resummed.object.observe(on: .synchronous) { object, _ in sink.note(object.snapshot ?? 0, 0) } : nil
            var table = Dictionary(uniqueKeysWithValues: keys.map { ($0, 0) })
            let sample = 2_000
            let seconds = Harness.once {
                for index in script.prefix(sample) {
                    table[keys[index], default: 0] += 1
                    resummed.publish(snapshot: table.values.reduce(0, +))
                }
            }
            token?.invalidate()
            return seconds / Double(sample)
        }

        let quiet = incremental(observed: false)
        let observed = incremental(observed: true)
        let quietResum = resum(observed: false)
        let observedResum = resum(observed: true)
        print("## client — unread total over 10,000 member channels, 1,000,000 message events\n")
        Harness.table(
            ["per event", "derived total (LiveTally)", "re-sum every channel (2,000 events)", "ratio"],
            [
                [
                    "total upkeep, no observer", Harness.format(quiet), Harness.format(quietResum),
                    Harness.ratio(quietResum / quiet),
                ],
                [
                    "with a synchronous observer (a badge)", Harness.format(observed), Harness.format(observedResum),
                    Harness.ratio(observedResum / observed),
                ],
            ])
        print()
        blackHole(sink.total)
    }

    static func rate(_ perSecond: Double) -> String {
        perSecond >= 1_000_000
            ? String(format: "%.1f M", perSecond / 1e6)
            : perSecond >= 1_000 ? String(format: "%.1f k", perSecond / 1e3) : String(format: "%.0f", perSecond)
    }
}
