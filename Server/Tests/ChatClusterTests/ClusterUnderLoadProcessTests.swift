import ChatAPI
import Foundation
import LiveChannels
import Testing
import ServerTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Three `chat-server` processes on a real PostgreSQL, under a send load and the faults a month
/// brings: the change log stays bounded, devices that leave while PostgreSQL is away are counted
/// offline on every node once it is back, and a node frozen in the middle of the load holds the
/// others up for less than 10 s and loses nothing it acknowledged.
@Suite(.serialized) struct ClusterUnderLoadProcessTests {
    /// Three nodes on a new database of `postgres`; stopped by the caller.
    private static func threeNodes(_ postgres: PostgresCluster) async throws -> [(process: Subprocess, port: Int)] {
        let url = postgres.url(try postgres.createDatabase())
        var nodes: [(process: Subprocess, port: Int)] = []
        for index in 0..<3 {
            nodes.append(
                try await ChatServerProcess.start(["--postgres", url, "--node-id", "n\(index)", "--no-limits"]))
        }
        return nodes
    }

    /// The users who read every channel back at the end, one per node.
    private static let readers = ["reader0", "reader1", "reader2"]

    /// A reader connected to each node (connecting makes the user).
    private static func connectReaders(_ nodes: [(process: Subprocess, port: Int)]) async throws
        -> [WebSocketTransport]
    {
        var readers: [WebSocketTransport] = []
        for (index, node) in nodes.enumerated() {
            let reader = ChatServerProcess.transport(Self.readers[index], port: node.port)
            _ = try await reader.connect(resumingAfter: nil)
            readers.append(reader)
        }
        return readers
    }

    /// `chat_log_entries` of the node on `port` (as of its last beat).
    private static func logEntries(port: Int) async throws -> Int? {
        let (data, _) = try await URLSession.cookieless.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
        where line.hasPrefix("chat_log_entries ") {
            return Int(Double(line.split(separator: " ").last ?? "") ?? -1)
        }
        return nil
    }

    /// Every message of `channelId`, oldest first, as the node `transport` is connected to has it.
    private static func allMessages(of channelId: String, through transport: WebSocketTransport) async throws
        -> [Message]
    {
        var messages: [Message] = []
        var position = MessagePageQuery.Position.after(sequence: 0)
        while true {
            let answer = try await transport.send(
                .queryMessages(MessagePageQuery(channelId: channelId, position: position, limit: 100)))
            guard case .messages(let page) = answer.response else { return messages }
            messages += page.messages
            guard let last = page.messages.last, page.hasNext else { return messages }
            position = .after(sequence: last.sequence)
        }
    }

    @Test func theLogStaysBoundedUnderASendLoad() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let nodes = try await Self.threeNodes(postgres)
            defer { Subprocess.stop(nodes.map(\.process)) }
            let readers = try await Self.connectReaders(nodes)
            // 6,000 messages: one sender per node, 16 in flight each.
            let perSender = 2_000
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, node) in nodes.enumerated() {
                    group.addTask {
                        let sender = ChatServerProcess.transport("s\(index)", port: node.port)
                        _ = try await sender.connect(resumingAfter: nil)
                        _ = try await sender.send(
                            .createChannel(
                                ChannelDraft(type: .community, channelId: "s\(index)", userIds: Self.readers)))
                        for batch in stride(from: 0, to: perSender, by: 16) {
                            try await withThrowingTaskGroup(of: Void.self) { sends in
                                for number in batch..<min(batch + 16, perSender) {
                                    sends.addTask {
                                        _ = try await sender.send(
                                            .sendMessage(MessageDraft(channelId: "s\(index)", text: "m\(number)")))
                                    }
                                }
                                try await sends.waitForAll()
                            }
                        }
                        await sender.disconnect()
                    }
                }
                try await group.waitForAll()
            }
            // Every node beats every 5 s: within a few beats the log keeps only its newest entries
            // (what the tables do not hold yet), not the 6,000 messages.
            let start = ContinuousClock.now
            var kept: [Int?] = []
            repeat {
                try await Task.sleep(for: .milliseconds(500))
                kept = []
                for node in nodes { kept.append(try await Self.logEntries(port: node.port)) }
            } while kept.contains(where: { ($0 ?? .max) > 100 }) && ContinuousClock.now - start < .seconds(30)
            #expect(kept.allSatisfy { ($0 ?? .max) <= 100 }, "chat_log_entries of the nodes: \(kept)")
            // And nothing was lost to the trimming: every node serves every message.
            for (index, reader) in readers.enumerated() {
                for channel in 0..<3 {
                    let texts = try await Self.allMessages(of: "s\(channel)", through: reader).map(\.text)
                    #expect(Set(texts) == Set((0..<perSender).map { "m\($0)" }), "node n\(index), channel s\(channel)")
                }
                await reader.disconnect()
            }
        }
    }

    @Test func devicesThatLeaveWhilePostgreSQLIsAwayAreOfflineOnEveryNodeOnceItIsBack() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let nodes = try await Self.threeNodes(postgres)
            defer { Subprocess.stop(nodes.map(\.process)) }
            var watchers: [WebSocketTransport] = []
            for (index, node) in nodes.enumerated() {
                let watcher = ChatServerProcess.transport("watcher\(index)", port: node.port)
                _ = try await watcher.connect(resumingAfter: nil)
                watchers.append(watcher)
            }
            var devices: [WebSocketTransport] = []
            for index in 0..<20 {
                let device = ChatServerProcess.transport("d\(index)", port: nodes[index % 3].port)
                _ = try await device.connect(resumingAfter: nil)
                devices.append(device)
            }
            let stays = ChatServerProcess.transport("stays", port: nodes[0].port)
            _ = try await stays.connect(resumingAfter: nil)
            /// The users of `ids` online as `watcher`'s node counts them.
            func online(_ ids: [String], on watcher: WebSocketTransport) async throws -> [String] {
                var online: [String] = []
                for id in ids {
                    if case .user(let user) = try await watcher.send(.getUser(userId: id)).response, user.isOnline {
                        online.append(id)
                    }
                }
                return online
            }
            let ids = (0..<20).map { "d\($0)" }
            for watcher in watchers { #expect(try await online(ids + ["stays"], on: watcher).count == 21) }

            // PostgreSQL goes away; the twenty devices leave meanwhile; it comes back within
            // seconds (well before a node would be found silent, 15 s).
            try postgres.kill()
            for device in devices { await device.disconnect() }
            try await Task.sleep(for: .seconds(1))
            try postgres.restart()
            let back = ContinuousClock.now

            // Every node counts all twenty offline, and the device that stayed online.
            for (index, watcher) in watchers.enumerated() {
                var left: [String] = ids
                while !left.isEmpty, ContinuousClock.now - back < .seconds(12) {
                    // The watcher's own connection may have dropped while PostgreSQL was away.
                    if (try? await watcher.send(.getUser(userId: "stays"))) == nil {
                        _ = try? await watcher.connect(resumingAfter: nil)
                    }
                    left = (try? await online(ids, on: watcher)) ?? ids
                    if !left.isEmpty { try await Task.sleep(for: .milliseconds(250)) }
                }
                #expect(left.isEmpty, "node n\(index) still counts \(left) online")
                #expect(try await online(["stays"], on: watcher) == ["stays"], "node n\(index)")
            }
            for transport in watchers + [stays] { await transport.disconnect() }
        }
    }

    /// What one sender had acknowledged, and when each answer came.
    private actor Acknowledged {
        var texts: [String] = []
        var times: [ContinuousClock.Instant] = []
        func note(_ text: String) {
            texts.append(text)
            times.append(.now)
        }
        /// The longest wait between two answers (or from `start`), within `start ... end`.
        func longestGap(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Duration {
            var previous = start
            var longest = Duration.zero
            for time in times.sorted() + [end] where time >= start {
                longest = max(longest, time - previous)
                previous = time
            }
            return longest
        }
    }

    /// Sends into `channelId` through `transport`, 4 at a time, until `end`, noting each
    /// acknowledged send; a refused or failed send is not noted.
    private static func sendLoad(
        _ transport: WebSocketTransport, into channelId: String, until end: ContinuousClock.Instant,
        noting acknowledged: Acknowledged
    ) async {
        var number = 0
        while ContinuousClock.now < end {
            await withTaskGroup(of: Void.self) { group in
                for offset in 0..<4 {
                    let text = "m\(number + offset)"
                    group.addTask {
                        guard
                            (try? await transport.send(.sendMessage(MessageDraft(channelId: channelId, text: text))))
                                != nil
                        else { return }
                        await acknowledged.note(text)
                    }
                }
            }
            number += 4
        }
    }

    @Test func aNodeFrozenUnderASendLoadHoldsTheOthersUpForLessThanTenSecondsAndLosesNothing() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let nodes = try await Self.threeNodes(postgres)
            defer {
                kill(nodes[0].process.process.processIdentifier, SIGCONT)
                Subprocess.stop(nodes.map(\.process))
            }
            let readers = try await Self.connectReaders(nodes)
            var senders: [WebSocketTransport] = []
            for (index, node) in nodes.enumerated() {
                let sender = ChatServerProcess.transport("s\(index)", port: node.port)
                _ = try await sender.connect(resumingAfter: nil)
                _ = try await sender.send(
                    .createChannel(
                        ChannelDraft(type: .community, channelId: "s\(index)", userIds: Self.readers)))
                senders.append(sender)
            }
            let logs = (0..<3).map { _ in Acknowledged() }
            let loaded = senders
            let start = ContinuousClock.now
            let end = start + .seconds(20)
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<3 {
                        let sender = loaded[index]
                        let log = logs[index]
                        group.addTask { await Self.sendLoad(sender, into: "s\(index)", until: end, noting: log) }
                    }
                }
            }
            // Node 0 freezes in the middle of the load (its appends, and the log's lock with
            // them, possibly in flight) for 8 s.
            try await Task.sleep(for: .seconds(3))
            let frozen = ContinuousClock.now
            kill(nodes[0].process.process.processIdentifier, SIGSTOP)
            try await Task.sleep(for: .seconds(8))
            kill(nodes[0].process.process.processIdentifier, SIGCONT)
            let thawed = ContinuousClock.now
            await load.value

            // The other nodes kept acknowledging while node 0 was frozen.
            for index in 1..<3 {
                let gap = await logs[index].longestGap(from: frozen, to: thawed)
                print("node n\(index): longest wait between acknowledged sends while n0 was frozen: \(gap)")
                #expect(gap < .seconds(10), "node n\(index) acknowledged nothing for \(gap)")
                #expect(await logs[index].times.contains { $0 > frozen && $0 < thawed })
            }
            // Nothing acknowledged is missing, on any node (node 0 included, once it caught up).
            for (index, reader) in readers.enumerated() {
                // Its connection may have ended while its node was frozen.
                if (try? await reader.send(.getUser(userId: "s0"))) == nil {
                    _ = try await reader.connect(resumingAfter: nil)
                }
                for channel in 0..<3 {
                    let stored = Set(try await Self.allMessages(of: "s\(channel)", through: reader).map(\.text))
                    let missing = Set(await logs[channel].texts).subtracting(stored)
                    #expect(
                        missing.isEmpty, "node n\(index), channel s\(channel): \(missing.count) acknowledged missing")
                }
                await reader.disconnect()
            }
            for sender in senders { await sender.disconnect() }
        }
    }
}
