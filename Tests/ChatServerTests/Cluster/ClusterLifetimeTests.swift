import ChatAPI
import Foundation
import Locking
import Testing

@testable import ChatServer

/// What keeps a cluster right over a long life: one live run per node id (its lease), a
/// restarted node's old devices offline at once, an entry a node cannot read stopping that node
/// rather than being skipped, and the entries nobody waits for surviving a failed append.
///
/// On the in-memory log and a ``ManualClock``, as ``ClusterTests``.
@Suite(.timeLimit(.minutes(1))) struct ClusterLifetimeTests {
    @Test func aSecondRunWithALiveNodesIdIsRefusedNamingIt() async throws {
        let (nodes, log) = try await ClusterTests.cluster(1)
        defer { Task { await nodes[0].close() } }
        await #expect {
            _ = try await ChatServer(clock: log.clock, opening: .cluster(log, nodeId: "node0"))
        } throws: { error in
            "\(error)".contains("node 'node0' is served by another live process")
        }
        // The live node goes on serving.
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "still")))
        #expect(nodes[0].channel("still") != nil)
    }

    @Test func aRestartedNodesEarlierDevicesGoOfflineAtOnceOnEveryNode() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { await nodes[1].close() } }
        _ = try await connected(nodes[0], "alice")
        try await ClusterTests.settle(nodes, log)
        #expect(nodes[1].user("alice")?.isOnline == true)
        // node0 dies without a word, and its id is taken again before anyone finds it silent
        // (the clock does not move: no beat names it).
        nodes[0].engine.halt()
        log.endLease(node: "node0")
        let restarted = try await ChatServer(clock: log.clock, opening: .cluster(log, nodeId: "node0"))
        defer { Task { await restarted.close() } }
        try await ClusterTests.settle([nodes[1], restarted], log)
        #expect(nodes[1].user("alice")?.isOnline == false)
        #expect(restarted.user("alice")?.isOnline == false)
        #expect(restarted.engine.replica!.incarnation == nodes[0].engine.replica!.incarnation + 1)
        // The new run serves: alice connects to it, and node1 sees her online again.
        _ = try await connected(restarted, "alice")
        try await ClusterTests.settle([nodes[1], restarted], log)
        #expect(nodes[1].user("alice")?.isOnline == true)
    }

    @Test func aNodeWithAFastClockDoesNotMoveTheClustersTime() async throws {
        let log = MemoryChangeLog(clock: ManualClock())
        let steady = try await ChatServer(clock: log.clock, opening: .cluster(log, nodeId: "steady"))
        // A node whose clock runs a day ahead of the others' (and the database's).
        let fast = ManualClock(start: log.clock.now + 86_400)
        let ahead = try await ChatServer(clock: fast, opening: .cluster(log, nodeId: "ahead"))
        defer { Task { for node in [steady, ahead] { await node.close() } } }
        try await steady.registerUser(id: "alice")
        try await steady.registerUser(id: "bob")
        var alice = try await connected(ahead, "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "hi")))
        try await alice.send(.startTyping(channelId: "c"))
        try await ClusterTests.settle([steady, ahead], log)
        // Every node applied it at the log's time: the message is not dated tomorrow, and the
        // typing indicator lasts its 5 s on the cluster's clock instead of having ended already.
        for node in [steady, ahead] {
            #expect(node.messages(channelId: "c").map(\.createdAt) == [log.clock.now], "\(node.nodeId!)")
            #expect(node.engine.core.withLock { $0.applied.time } == log.clock.now)
            #expect(node.typingUsers(channelId: "c") == ["alice"], "\(node.nodeId!)")
        }
        _ = await alice.drain()
    }

    @Test func anEntryOfAnEarlierRunNeverAnswersThisRunsCaller() throws {
        let log = MemoryChangeLog(clock: ManualClock())
        let reader = DatabaseServerStore(database: log, epoch: "e", messagesPerChannel: 10)
        let replica = ClusterReplica(
            nodeId: "node0", incarnation: 2, log: log, reader: reader, position: 0, clock: log.clock)
        let time = Date(timeIntervalSinceReferenceDate: 0)
        #expect(replica.wrote(ChangeEntry(node: "node0", incarnation: 2, ref: 1, time: time, kind: .tick)))
        #expect(!replica.wrote(ChangeEntry(node: "node0", incarnation: 1, ref: 1, time: time, kind: .tick)))
        #expect(!replica.wrote(ChangeEntry(node: "node1", incarnation: 2, ref: 1, time: time, kind: .tick)))
    }

    @Test func aNodeThatLosesItsLeaseStops() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        var alice = TestDevice(nodes[1], "alice")
        try await alice.connect()
        log.endLease(node: "node1")
        // node1's next beat hears that the lease is gone.
        (log.clock as! ManualClock).advance(by: log.silentLimit / 3)
        let reason = await nodes[1].waitForHalt()
        #expect(reason?.contains("lost its lease") == true)
        #expect(nodes[1].haltReason == reason)
        #expect(!nodes[1].isStorageHealthy)
        #expect(nodes[0].haltReason == nil && nodes[0].isStorageHealthy)
        await #expect(throws: ChatError.self) {
            try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "after")))
        }
    }

    @Test func anEntryANodeCannotReadStopsItAtThatPosition() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        try await ClusterTests.settle(nodes, log)
        // An entry of a format from the future, as a newer node would write it.
        let position = try await log.append([[ChangeEntry.format + 1, 0, 0]], node: "future")
        for node in nodes {
            let reason = await node.waitForHalt()
            #expect(reason?.contains("entry at position \(position)") == true, "\(reason ?? "")")
            #expect(reason?.contains("upgrade this node") == true)
            #expect(node.engine.replica!.appliedPosition == position - 1, "not skipped")
            #expect(!node.isStorageHealthy)
        }
    }

    @Test func aDisconnectDuringAFailedAppendIsWrittenOnceTheLogIsBack() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        let alice = try await connected(nodes[0], "alice")
        try await ClusterTests.settle(nodes, log)
        #expect(nodes[1].user("alice")?.isOnline == true)
        log.setFailing(true)
        let before = log.count
        await alice.transport.disconnect()
        // The detach's append fails; a retry while the log still fails keeps it too.
        await log.waitUntil(refused: 1)
        let appender = nodes[0].engine.replica!.appender
        // The log refused; the appender handles the refusal on another task.
        let kept = await Self.yield(until: { appender.hasQueued && !appender.isAppending })
        #expect(kept, "the detach is kept")
        guard kept else { return }
        (log.clock as! ManualClock).advance(by: LogAppender.retryDelay + LogFollower.pollInterval)
        await log.waitUntil(refused: 2)
        #expect(await Self.yield(until: { appender.hasQueued && !appender.isAppending }), "and kept again")
        #expect(nodes[1].user("alice")?.isOnline == true, "not told yet")
        log.setFailing(false)
        (log.clock as! ManualClock).advance(by: LogAppender.retryDelay + LogFollower.pollInterval)
        try await ClusterTests.settle(nodes, log, atLeast: before + 1)
        #expect(nodes[1].user("alice")?.isOnline == false)
        #expect(nodes[0].user("alice")?.isOnline == false)
    }

    /// What a node could not do is reported, not swallowed: a last snapshot the log refused at
    /// close says so, with the log's error (it was dropped without a word).
    @Test func aLastSnapshotTheLogRefusesIsReported() async throws {
        let (nodes, log) = try await ClusterTests.cluster(1)
        let reported = Lock<[ServerDiagnostic]>([], rank: .leaf)
        nodes[0].reportDiagnostics { diagnostic in reported.withLock { $0.append(diagnostic) } }
        _ = try await connected(nodes[0], "alice")
        log.setFailingSnapshots(true)
        await nodes[0].close()
        let said = reported.withLock { $0 }
        #expect(said.count == 1 && said.first?.message.contains("last snapshot was not written") == true, "\(said)")
        #expect(said.first?.reason.isEmpty == false)
    }

    /// Yields until `condition` holds, at most 100,000 times (no wall-clock wait): for what
    /// another task does next without a signal to wait on.
    static func yield(until condition: () -> Bool) async -> Bool {
        for _ in 0..<100_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }
}

extension ClusterLifetimeTests {
    @Test func aBusyNodeWritesItsSnapshotOnlyOncePerSnapshotDelay() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        let clock = log.clock as! ManualClock
        let alice = try await connected(nodes[0], "alice")
        try await ClusterTests.settle(nodes, log)
        let tablesAtStart = log.snapshotPosition
        let writesAtStart = log.snapshotWriteCount
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for index in 0..<20 {
            try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "m\(index)")))
        }
        try await ClusterTests.settle(nodes, log)
        // Within the same second, the appends write their entries only: the tables stay where
        // they were, the log has everything.
        #expect(log.snapshotPosition == tablesAtStart, "the tables moved within a second (\(log.count) entries)")
        #expect(nodes[1].messages(channelId: "c").count == 20)
        // A second later the tables follow, in one write: after the next append (or at a quiet
        // node's poll).
        let applied = log.count
        clock.advance(by: LogAppender.snapshotDelay)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "later")))
        await log.waitUntil(snapshot: applied)
        #expect(log.snapshotPosition >= applied)
        #expect(log.snapshotWriteCount == writesAtStart + 1)
        for node in nodes { await node.close() }
    }

    /// A node's snapshot is a write of its own: while one waits (another node is writing its
    /// own), every node's appends commit and apply, and each caller is answered.
    @Test func appendsGoOnWhileASnapshotWaits() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        let clock = log.clock as! ManualClock
        let alice = try await connected(nodes[0], "alice")
        let bob = try await connected(nodes[1], "bob")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        try await ClusterTests.settle(nodes, log)
        log.holdSnapshots()
        let tables = log.snapshotPosition
        clock.advance(by: LogAppender.snapshotDelay)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "first")))
        #expect(await Self.yield(until: { log.heldSnapshotWriteCount >= 1 }), "node0's snapshot is under way")
        for index in 0..<10 {
            try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "a\(index)")))
            try await bob.send(.sendMessage(MessageDraft(channelId: "c", text: "b\(index)")))
        }
        try await ClusterTests.settle(nodes, log)
        for node in nodes { #expect(node.messages(channelId: "c").count == 21) }
        #expect(log.snapshotPosition == tables, "no snapshot written while held")
        log.releaseSnapshots()
        await log.waitUntil(snapshot: tables + 1)
        #expect(log.snapshotPosition > tables)
    }

    @Test func theLogKeepsOnlyWhatALiveNodeOrTheTablesStillNeed() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        for index in 0..<40 {
            try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "m\(index)")))
        }
        try await ClusterTests.settle(nodes, log)
        let clock = log.clock as! ManualClock
        // The tables catch up (a quiet node writes them at a poll), then two rounds of beats
        // report every node's position and remove what everyone applied and the tables hold.
        clock.advance(by: LogAppender.snapshotDelay + LogFollower.pollInterval)
        await log.waitUntil(snapshot: log.count)
        for _ in 0..<2 {
            clock.advance(by: log.silentLimit / 3)
            _ = await Self.yield(until: { log.keptCount == 1 })
        }
        #expect(log.keptCount == 1, "only the newest entry is kept of \(log.count)")
        // Each node's next beat reports it (`chat_log_entries`).
        clock.advance(by: log.silentLimit / 3)
        let reported = await Self.yield(until: { nodes.allSatisfy { $0.clusterLogEntries == 1 } })
        #expect(reported, "\(nodes.map(\.clusterLogEntries))")
        // Everything goes on: a send, and a node started now from the tables.
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "after")))
        let late = try await ChatServer(clock: log.clock, opening: .cluster(log, nodeId: "late"))
        try await ClusterTests.settle(nodes + [late], log)
        #expect(late.messages(channelId: "c").map(\.text) == nodes[1].messages(channelId: "c").map(\.text))
        #expect(late.messages(channelId: "c").last?.text == "after")
        for node in nodes + [late] { await node.close() }
    }

    @Test func aNodeThatNeedsARemovedEntryStopsRatherThanSkipIt() async throws {
        let (nodes, log) = try await ClusterTests.cluster(2)
        defer { Task { for node in nodes { await node.close() } } }
        try await ClusterTests.settle(nodes, log)
        // node1 hears of nothing (no notifications, and its clock does not move), while node0
        // writes; the log is then trimmed past node1's position.
        log.setMuted(true)
        let alice = try await connected(nodes[0], "alice")
        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c")))
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "one")))
        let behind = nodes[1].engine.replica!.appliedPosition
        log.trim(through: log.count)
        (log.clock as! ManualClock).advance(by: LogFollower.pollInterval)
        let reason = await nodes[1].waitForHalt()
        #expect(reason?.contains("fell behind the change log: it needs the entry at position \(behind + 1)") == true)
        #expect(nodes[1].engine.replica!.appliedPosition == behind, "nothing after the gap applied")
        #expect(nodes[0].haltReason == nil)
    }
}
