import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Several nodes over one change log are one service: a change answered by one node is in force
/// on every node after it, events cross nodes in order, a device resumes on any node exactly
/// after its last event (or is told to resync), presence and the device cap count every node,
/// and a node that misses notifications or starts late catches up from the log.
///
/// The nodes run on one ``ManualClock`` (the log's clock too): polls, beats, snapshot writes and
/// timeouts happen when a test advances it, and waits are on the log and the nodes' applied
/// positions, never on wall time.
@Suite(.timeLimit(.minutes(1))) struct ClusterTests {
    /// `count` nodes on one in-memory log, with users alice, bob, carol and boss (admin).
    static func cluster(
        _ count: Int, log: MemoryChangeLog = MemoryChangeLog(clock: ManualClock()),
        configuration: ServerConfiguration = ServerConfiguration()
    ) async throws -> (nodes: [ChatServer], log: MemoryChangeLog) {
        var nodes: [ChatServer] = []
        for index in 0..<count {
            nodes.append(
                try await ChatServer(
                    clock: log.clock, configuration: configuration, opening: .cluster(log, nodeId: "node\(index)")))
        }
        for id in ["alice", "bob", "carol"] { try await nodes[0].registerUser(id: id, displayName: id.capitalized) }
        try await nodes[0].registerUser(id: "boss", isAdmin: true)
        return (nodes, log)
    }

    /// Returns once the log holds at least `count` entries and every node has applied all of it.
    static func settle(_ nodes: [ChatServer], _ log: MemoryChangeLog, atLeast count: Int = 0) async throws {
        await log.waitUntil(count: count)
        let head = log.count
        for node in nodes {
            let applied = await node.engine.replica!.follower.waitUntilApplied(head)
            #expect(applied, "node \(node.nodeId ?? "?") stopped before it applied the log")
        }
    }

    @Test func aChangeAnsweredByOneNodeIsInForceOnEveryOther() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        var alice = try await connected(nodes[0], "alice")
        var bob = try await connected(nodes[1], "bob")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "ops", userIds: ["bob"])))
        // Bob, on the other node, can send at once, and alice hears it.
        try await bob.send(.sendMessage(MessageDraft(channelId: "ops", text: "hi")))
        try await Self.settle(nodes, log)
        #expect(await alice.drainEvents().map(\.name).contains("messageNew"))

        // Alice bans bob on her node: his next send, on his node, is refused.
        try await alice.send(.banMembers(channelId: "ops", userIds: ["bob"]))
        await #expect(throws: ChatError.self) {
            try await bob.send(.sendMessage(MessageDraft(channelId: "ops", text: "still here?")))
        }
        try await Self.settle(nodes, log)
        for node in nodes {
            #expect(node.messages(channelId: "ops").map(\.text) == ["hi"])
            #expect(node.members(channelId: "ops").first { $0.userId == "bob" }?.membership == .banned)
        }
        _ = await bob.drain()
    }

    @Test func twoNodesCreatingTheSameConversationAtOnceMakeOneChannel() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        let alice = try await connected(nodes[0], "alice")
        let bob = try await connected(nodes[1], "bob")
        async let first = alice.send(.createChannel(ChannelDraft(type: .conversation, userIds: ["bob"])))
        async let second = bob.send(.createChannel(ChannelDraft(type: .conversation, userIds: ["alice"])))
        guard case .channel(let one) = try await first, case .channel(let other) = try await second else {
            Issue.record("a creation did not answer a channel")
            return
        }
        #expect(one.channelId == other.channelId)
        try await Self.settle(nodes, log)
        for node in nodes {
            #expect(node.engine.currentState.channels.values.filter { $0.info.type == .conversation }.count == 1)
        }
    }

    @Test func eventsCrossNodesInOrderAndADeviceResumesOnAnotherNodeExactlyAfterItsLast() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        var alice = try await connected(nodes[0], "alice")
        var bob = try await connected(nodes[1], "bob", "phone")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for text in ["1", "2"] { try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: text))) }
        try await Self.settle(nodes, log)
        let seen = await bob.drain()
        #expect(seen.compactMap(\.event.newMessageText) == ["1", "2"])
        // Numbered 1, 2, 3 … on a cluster too: whichever node applies them, every node counts a
        // device's events alike.
        #expect(seen.map(\.sequence) == Array(1...seen.count))
        let last = try #require(seen.last?.sequence)

        // Bob's phone leaves node 1; alice sends twice; the phone comes back on node 0.
        await bob.transport.disconnect()
        for text in ["3", "4"] { try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: text))) }
        var moved = TestDevice(nodes[0], "bob", "phone")
        let result = try await moved.connect(resumingAfter: last)
        #expect(result.status == .resumed)
        try await Self.settle(nodes, log)
        let replayed = await moved.drain()
        #expect(replayed.compactMap(\.event.newMessageText) == ["3", "4"])
        // Exactly after its last: the next number is the one after it, no gap.
        #expect(replayed.map(\.sequence) == Array((last + 1)...(last + replayed.count)))
        // A device that resumes after a number it was never given is told to resync.
        await moved.transport.disconnect()
        try await Self.settle(nodes, log)
        var stale = TestDevice(nodes[1], "bob", "phone")
        let resync = try await stale.connect(resumingAfter: replayed.last!.sequence + 5)
        #expect(resync.status == .resyncRequired)
        #expect(resync.lastSequence == replayed.last!.sequence)
        _ = await alice.drain()
    }

    @Test func presenceAndTheDeviceCapCountEveryNode() async throws {
        var configuration = ServerConfiguration()
        configuration.maxDevicesPerUser = 1
        let (nodes, log) = try await Self.cluster(2, configuration: configuration)
        defer { Task { for node in nodes { await node.close() } } }
        let alice = try await connected(nodes[0], "alice", "phone")
        // The check before an upgrade counts every node at once (a read barrier: no settling).
        await #expect(throws: ChatError.self) {
            try await nodes[1].checkCanConnect(userId: "alice", deviceId: "tablet")
        }
        try await nodes[1].checkCanConnect(userId: "alice", deviceId: "phone")
        try await Self.settle(nodes, log)
        #expect(nodes[1].user("alice")?.isOnline == true)
        var tablet = TestDevice(nodes[1], "alice", "tablet")
        await #expect(throws: ChatError.self) { try await tablet.connect() }

        let before = log.count
        await alice.transport.disconnect()  // logs the detach
        try await Self.settle(nodes, log, atLeast: before + 1)
        #expect(nodes[1].user("alice")?.isOnline == false)
        try await tablet.connect()
        try await Self.settle(nodes, log)
        #expect(nodes[0].user("alice")?.isOnline == true)
    }

    @Test func aUsersMessageBudgetIsOneAcrossNodes() async throws {
        var configuration = ServerConfiguration()
        configuration.messagesPerSecond = 1  // a burst of 2
        let (nodes, log) = try await Self.cluster(2, configuration: configuration)
        defer { Task { for node in nodes { await node.close() } } }
        let phone = try await connected(nodes[0], "alice", "phone")
        let tablet = try await connected(nodes[1], "alice", "tablet")
        try await phone.send(.createChannel(ChannelDraft(type: .community, channelId: "c")))
        for text in ["1", "2"] { try await phone.send(.sendMessage(MessageDraft(channelId: "c", text: text))) }
        try await Self.settle(nodes, log)
        // The other node counts the phone's sends: the tablet's is over the user's budget.
        do {
            try await tablet.send(.sendMessage(MessageDraft(channelId: "c", text: "3")))
            Issue.record("a third message within the second was accepted on the other node")
        } catch let error as ChatError {
            guard case .rateLimited = error else { throw error }
        }
        try await Self.settle(nodes, log)
        for node in nodes { #expect(node.messages(channelId: "c").map(\.text) == ["1", "2"]) }
    }

    @Test func theDevicesOfANodeThatStopsBeatingAreCountedOffline() async throws {
        let clock = ManualClock()
        let log = MemoryChangeLog(clock: clock)
        log.setSilentLimit(2)  // nodes beat every 0.67 s
        let (nodes, _) = try await Self.cluster(2, log: log)
        defer { Task { await nodes[1].close() } }
        _ = try await connected(nodes[0], "alice")
        try await Self.settle(nodes, log)
        #expect(nodes[1].user("alice")?.isOnline == true)
        nodes[0].engine.halt()  // as if killed: no goodbye
        // Past the silent limit, node1's next beat names node0, and its devices go offline.
        let before = log.count
        clock.advance(by: 3)
        try await Self.settle([nodes[1]], log, atLeast: before + 1)
        #expect(nodes[1].user("alice")?.isOnline == false)
    }

    @Test func aNodeThatMissesNotificationsCatchesUpByPolling() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        try await Self.settle(nodes, log)
        log.setMuted(true)
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "quiet")))
        #expect(nodes[1].channel("quiet") == nil, "told of the append without a notification")
        // The next poll reads it.
        (log.clock as! ManualClock).advance(by: LogFollower.pollInterval)
        try await Self.settle(nodes, log)
        #expect(nodes[1].channel("quiet") != nil)
    }

    @Test func aFailedAppendChangesNothingAnywhere() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        let alice = try await connected(nodes[0], "alice")
        log.setFailing(true)
        await #expect(throws: ChatError.self) {
            try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "lost")))
        }
        log.setFailing(false)
        try await Self.settle(nodes, log)
        for node in nodes { #expect(node.channel("lost") == nil) }
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "kept")))
        try await Self.settle(nodes, log)
        for node in nodes { #expect(node.channel("kept") != nil) }
    }

    @Test func aNodeRestoredFromTheTablesNumbersEveryDevicesEventsAsTheOthersDo() async throws {
        let (nodes, log) = try await Self.cluster(2)
        var alice = try await connected(nodes[0], "alice")
        var bob = try await connected(nodes[1], "bob", "phone")
        _ = try await connected(nodes[1], "carol")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob", "carol"])))
        for text in ["1", "2", "3"] { try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: text))) }
        try await Self.settle(nodes, log)
        let seen = await bob.drain()
        let last = try #require(seen.last?.sequence)
        #expect(seen.map(\.sequence) == Array(1...last))
        // The tables take the counts. A node started now restores them, and applies the log
        // from there on as the others do: every device's count is the same on every node.
        (log.clock as! ManualClock).advance(by: LogAppender.snapshotDelay + LogFollower.pollInterval)
        await log.waitUntil(snapshot: log.count)
        let late = try await ChatServer(clock: log.clock, opening: .cluster(log, nodeId: "late"))
        for text in ["4", "5"] { try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: text))) }
        try await Self.settle(nodes + [late], log)
        let counts = nodes[0].engine.core.withLock { $0.hub.eventCounts }
        #expect(counts.count == 3, "every device of the service has a count")
        for node in [nodes[1], late] {
            #expect(node.engine.core.withLock { $0.hub.eventCounts } == counts, "node \(node.nodeId!)")
        }
        // Bob's phone moves to the new node and resumes exactly after the last event it read
        // there: the new node holds what it applied since the tables.
        await bob.transport.disconnect()
        var moved = TestDevice(late, "bob", "phone")
        let result = try await moved.connect(resumingAfter: last)
        #expect(result.status == .resumed)
        try await Self.settle(nodes + [late], log)
        let replayed = await moved.drain()
        #expect(replayed.compactMap(\.event.newMessageText) == ["4", "5"])
        #expect(replayed.map(\.sequence) == Array((last + 1)...(last + replayed.count)))
        // A number before what the new node holds (it holds what followed the tables): resync.
        await moved.transport.disconnect()
        var early = TestDevice(late, "bob", "phone")
        #expect(try await early.connect(resumingAfter: 1).status == .resyncRequired)
        _ = await alice.drain()
        for node in nodes + [late] { await node.close() }
    }

    @Test func theConsoleOfOneNodeDisconnectsADeviceOnAnother() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        var bob = try await connected(nodes[1], "bob", "phone")
        try await Self.settle(nodes, log)
        #expect(
            nodes[0].serviceSummary().nodes.map { "\($0.nodeId)=\($0.connectedDevices)" } == ["node0=0", "node1=1"])
        try await nodes[0].disconnect(userId: "bob", deviceId: "phone")
        guard case .disconnected(.connectionLost(.forbidden))? = await bob.next() else {
            Issue.record("bob's node did not end his connection")
            return
        }
        try await Self.settle(nodes, log)
        for node in nodes {
            #expect(node.user("bob")?.isOnline == false, "\(node.nodeId!)")
            #expect(node.serviceSummary().connectedDevices == 0, "\(node.nodeId!)")
        }
    }

    @Test func theSummaryListsEveryLiveNodeWithOrWithoutDevices() async throws {
        let (nodes, log) = try await Self.cluster(3)
        defer { Task { for node in nodes { await node.close() } } }
        let clock = log.clock as! ManualClock
        // Every node beats at start and each third of the silent limit; a beat tells the live
        // nodes. Node 0 lists all three at its first beat after theirs: time moves on a third of
        // the limit at a time, the beats between given turns, not wall-clock time (a beat task
        // that had not gone back to sleep when the clock moved beats at the next move).
        var listed: [String] = []
        for _ in 0..<500 {
            clock.advance(by: log.silentLimit / 3)
            for _ in 0..<1_000 where nodes[0].serviceSummary().nodes.count < 3 { await Task.yield() }
            listed = nodes[0].serviceSummary().nodes.map(\.nodeId)
            if listed.count == 3 { break }
        }
        #expect(listed == ["node0", "node1", "node2"])
        let summary = nodes[0].serviceSummary()
        #expect(summary.nodes.allSatisfy { $0.connectedDevices == 0 })
        // Each node's applied position, as of its last beat (this node's: now).
        #expect(summary.nodes.allSatisfy { $0.appliedPosition != nil })
        #expect(summary.nodes.first?.appliedPosition == summary.appliedPosition)
    }

    @Test func aBanFromTheServiceThroughOneNodeIsInForceOnEveryNode() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        var bob = try await connected(nodes[1], "bob", "phone")
        try await Self.settle(nodes, log)
        try await nodes[0].banUser("bob")
        guard case .disconnected(.connectionLost(.forbidden))? = await bob.next() else {
            Issue.record("bob's node did not end his connection")
            return
        }
        try await Self.settle(nodes, log)
        for node in nodes {
            #expect(node.serviceBan(of: "bob") != nil, "\(node.nodeId!)")
            #expect(node.user("bob")?.isOnline == false, "\(node.nodeId!)")
            await #expect(throws: ChatError.forbidden("user 'bob' is banned from the service")) {
                try await node.checkCanConnect(userId: "bob", deviceId: "phone")
            }
        }
        // The connect itself is refused where it applies, in the log's order.
        var again = TestDevice(nodes[1], "bob", "laptop")
        await #expect(throws: ChatError.forbidden("user 'bob' is banned from the service")) {
            _ = try await again.connect()
        }
        try await nodes[1].unbanUser("bob")
        try await Self.settle(nodes, log)
        var back = TestDevice(nodes[0], "bob", "laptop")
        _ = try await back.connect()
        try await Self.settle(nodes, log)
        #expect(nodes[1].user("bob")?.isOnline == true)
    }

    @Test func aNodeStartedLaterLoadsTheTablesAndTheLogAfterThem() async throws {
        let (nodes, log) = try await Self.cluster(2)
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for index in 0..<30 {
            try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "m\(index)")))
        }
        try await Self.settle(nodes, log)
        // Some of it is in the tables (a quiet node writes them a second after its last write,
        // at a poll), the rest only in the log.
        (log.clock as! ManualClock).advance(by: LogAppender.snapshotDelay + LogFollower.pollInterval)
        await log.waitUntil(snapshot: 1)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "newest")))
        let late = try await ChatServer(clock: log.clock, opening: .cluster(log, nodeId: "late"))
        try await Self.settle(nodes + [late], log)
        #expect(log.snapshotPosition > 0)
        #expect(late.messages(channelId: "c").map(\.text) == nodes[0].messages(channelId: "c").map(\.text))
        #expect(late.members(channelId: "c") == nodes[1].members(channelId: "c"))
        for node in nodes + [late] { await node.close() }
    }
}

extension ChatEvent {
    /// The text of a new message, for compact assertions.
    var newMessageText: String? {
        if case .messageNew(let message, _) = self { return message.text }
        return nil
    }
}
