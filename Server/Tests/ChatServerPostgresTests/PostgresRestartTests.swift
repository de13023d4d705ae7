import ChatAPI
import ChatServerPostgres
import Foundation
import Testing
import ServerTestSupport
import TestSupport

@testable @_spi(Testing) import ChatServer

/// What the SQLite store's restart tests check, against a real PostgreSQL opened as `chat-server`
/// opens it (a node of a cluster, here a cluster of one): every stored field back after a
/// restart (the same seeded workload of every request kind), numbering that continues, and
/// devices resuming across a restart exactly where they were.
@Suite(.timeLimit(.minutes(3))) struct PostgresRestartTests {
    private func database(_ cluster: PostgresCluster, _ name: String) throws -> PostgresServerDatabase {
        PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name)))
    }

    @Test func aRestartRestoresEverythingStored() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        for fixed in [1, 2] as [UInt64] {
            let seed = SeededGenerator.testSeed(fixed)
            let name = try cluster.createDatabase()
            let clock = ManualClock()
            let configuration = ServerConfiguration(messagesPerChannel: 3)
            let server = try await ChatServer(
                clock: clock, configuration: configuration, opening: .cluster(try database(cluster, name), nodeId: "n0")
            )
            var workload = StorageWorkload(seed: seed)
            try await workload.run(1_000, on: server, clock: clock)
            try await Self.settle(server)
            let before = StoredSnapshot(server)
            let epoch = server.epoch
            await server.close()

            let reopened = try await ChatServer(
                clock: clock, configuration: configuration, opening: .cluster(try database(cluster, name), nodeId: "n0")
            )
            #expect(StoredSnapshot(reopened) == before, "seed \(seed)")
            #expect(reopened.epoch == epoch, "the same history")
            #expect(
                before.channels.values.contains { $0.messageCount > 3 },
                "the run pages past the kept messages (seed \(seed))")
            // Every channel's whole history pages forward from PostgreSQL, numbered without gaps,
            // as one of its members reads it (each in order of name, so a run is repeatable).
            for (channelId, channel) in before.channels.sorted(by: { $0.key < $1.key })
            where channel.messageCount > 3 {
                var read: [Int]?
                var refusals: [String] = []
                for member in before.members[channelId, default: [:]].keys.sorted() where read == nil {
                    do {
                        read = try await Self.sequences(in: channelId, readBy: member, on: reopened)
                    } catch {
                        refusals.append("\(member): \(error)")
                    }
                }
                #expect(
                    read == Array(1...channel.messageCount),
                    "seed \(seed), \(channelId): \(channel.messageCount) messages; refused: \(refusals)")
            }
            await reopened.close()
        }
    }

    /// A device that resumes across a restart on PostgreSQL continues exactly: the node restored
    /// from the tables numbers each device's events as before, so a device resuming at its last
    /// event is resumed (nothing missed), one resuming from before what the restored log holds is
    /// told to resync, and numbering never goes backwards.
    @Test func aDeviceResumingAcrossARestartContinuesExactly() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let server = try await ChatServer(opening: .cluster(try database(cluster, name), nodeId: "n0"))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann", "ben"])
        let ann = server.connection(userId: "ann", deviceId: "phone")
        _ = try await ann.connect(resumingAfter: nil)
        try await server.sendMessage(as: "ben", channelId: "room", text: "hi")
        var events = ann.events.makeAsyncIterator()
        var seen = 0
        while seen == 0, let next = await events.next() {
            if case .event(let envelope) = next, case .messageNew = envelope.event { seen = envelope.sequence }
        }
        #expect(seen > 0)
        await server.close()

        let reopened = try await ChatServer(opening: .cluster(try database(cluster, name), nodeId: "n0"))
        let resumed = try await reopened.connection(userId: "ann", deviceId: "phone").connect(resumingAfter: seen)
        #expect(resumed.status == .resumed && resumed.lastSequence >= seen, "\(resumed)")
        let fromStart = try await reopened.connection(userId: "ann", deviceId: "phone").connect(resumingAfter: 0)
        #expect(fromStart.status == .resyncRequired && fromStart.lastSequence >= seen, "\(fromStart)")
        #expect(
            try await reopened.connection(userId: "ben", deviceId: "tablet").connect(resumingAfter: nil).status == .new)
        // Numbering continues: the next message follows the stored one.
        let next = try await reopened.sendMessage(as: "ben", channelId: "room", text: "again")
        #expect(next.sequence == 2)
        await reopened.close()
    }

    /// Waits until the node has applied the ends of the workload's connections (each an entry
    /// that comes back from the log): every user offline, as a restart finds them.
    private static func settle(_ server: ChatServer) async throws {
        for _ in 0..<1_000 {
            try await server.awaitCommitted()
            if server.engine.currentState.users.entries.values.allSatisfy({ !$0.isOnline }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the workload's users are still online on the node")
    }

    /// Every message sequence of `channelId`, paged forward from the first as `userId` reads them.
    private static func sequences(in channelId: String, readBy userId: String, on server: ChatServer) async throws
        -> [Int]
    {
        let device = server.connection(userId: userId, deviceId: "reader")
        _ = try await device.connect(resumingAfter: nil)
        defer { Task { await device.disconnect() } }
        var sequences: [Int] = []
        while true {
            let query = MessagePageQuery(
                channelId: channelId, position: .after(sequence: sequences.last ?? 0), limit: 100)
            guard case .messages(let page) = try await device.send(.queryMessages(query)).response else {
                return sequences
            }
            sequences += page.messages.map(\.sequence)
            if !page.hasNext { return sequences }
        }
    }
}
