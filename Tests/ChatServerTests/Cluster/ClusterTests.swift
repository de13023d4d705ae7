import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Several nodes over one change log are one service: a change answered by one node is in force
/// on every node after it, events cross nodes in order, a device resumes on any node exactly
/// after its last event (or is told to resync), presence and the device cap count every node,
/// and a node that misses notifications or starts late catches up from the log.
@Suite struct ClusterTests {
    /// `count` nodes on one in-memory log, with users alice, bob, carol and boss (admin).
    static func cluster(
        _ count: Int, log: MemoryChangeLog = MemoryChangeLog(),
        configuration: ServerConfiguration = ServerConfiguration()
    ) async throws -> (nodes: [ChatServer], log: MemoryChangeLog) {
        var nodes: [ChatServer] = []
        for index in 0..<count {
            nodes.append(try await ChatServer(configuration: configuration, log: log, nodeId: "node\(index)"))
        }
        for id in ["alice", "bob", "carol"] { try await nodes[0].registerUser(id: id, displayName: id.capitalized) }
        try await nodes[0].registerUser(id: "boss", isAdmin: true)
        return (nodes, log)
    }

    /// Waits (at most 10 s) until every node has applied the whole log.
    static func settle(_ nodes: [ChatServer], _ log: MemoryChangeLog) async throws {
        let deadline = Date() + 10
        while nodes.contains(where: { $0.engine.replica!.appliedPosition < log.count }) {
            guard Date() < deadline else {
                Issue.record("nodes did not apply the log within 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits (at most 10 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = Date() + 10
        while !condition() {
            guard Date() < deadline else {
                Issue.record("the condition did not hold within 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
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
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
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
        #expect(replayed.allSatisfy { $0.sequence > last })
        // A device that resumes after a number no node holds is told to resync; numbers go on
        // growing.
        await moved.transport.disconnect()
        var stale = TestDevice(nodes[1], "bob", "phone")
        let resync = try await stale.connect(resumingAfter: 1)
        #expect(resync.status == .resyncRequired)
        #expect(resync.lastSequence >= replayed.last!.sequence)
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

        await alice.transport.disconnect()
        try await Self.eventually { nodes[1].user("alice")?.isOnline == false }
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
        let log = MemoryChangeLog()
        log.setSilentLimit(2)  // nodes beat every 0.67 s
        let (nodes, _) = try await Self.cluster(2, log: log)
        defer { Task { await nodes[1].close() } }
        _ = try await connected(nodes[0], "alice")
        try await Self.settle(nodes, log)
        #expect(nodes[1].user("alice")?.isOnline == true)
        nodes[0].engine.halt()  // as if killed: no goodbye
        let deadline = Date() + 20
        while nodes[1].user("alice")?.isOnline == true, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(nodes[1].user("alice")?.isOnline == false)
    }

    @Test func aNodeThatMissesNotificationsCatchesUpByPolling() async throws {
        let (nodes, log) = try await Self.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        log.setMuted(true)
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "quiet")))
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

    @Test func aNodeStartedLaterLoadsTheTablesAndTheLogAfterThem() async throws {
        let (nodes, log) = try await Self.cluster(2)
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for index in 0..<30 {
            try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "m\(index)")))
        }
        try await Self.settle(nodes, log)
        // Some of it is in the tables (a quiet node writes them within a second or so), the rest
        // only in the log.
        try await Self.eventually { log.snapshotPosition > 0 }
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "newest")))
        let late = try await ChatServer(log: log, nodeId: "late")
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
