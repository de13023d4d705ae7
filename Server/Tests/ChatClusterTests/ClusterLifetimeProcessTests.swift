import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A cluster over a long life, with `chat-server` processes on a real PostgreSQL: one live
/// process per node id, a node restarted under its id has its earlier devices offline at once,
/// a node that cannot read an entry of the log stops (and says where) rather than skip it, and
/// a node asked to stop while PostgreSQL does not answer still ends.
@Suite(.serialized) struct ClusterLifetimeProcessTests {
    @Test func aSecondProcessWithALiveNodesIdIsRefusedNamingIt() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let (first, port) = try await ChatServerProcess.start(["--postgres", url, "--node-id", "n0"])
            defer { first.stop() }
            let second = try Subprocess(
                ChatServerProcess.executable, ["--port", "0", "--dev", "--postgres", url, "--node-id", "n0"])
            #expect(await second.exitStatus() == 2)
            #expect(second.standardError.contains("node 'n0' is served by another live process"))
            // The first goes on serving.
            let alice = ChatServerProcess.transport("alice", port: port)
            _ = try await alice.connect(resumingAfter: nil)
            _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "still")))
            await alice.disconnect()
            // Once it stopped, the id is free at once.
            first.process.terminate()
            _ = await first.exitStatus()
            let (next, _) = try await ChatServerProcess.start(["--postgres", url, "--node-id", "n0"])
            next.process.terminate()
        }
    }

    @Test func aNodeRestartedUnderItsIdHasItsEarlierDevicesOfflineAtOnce() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let (n0, port0) = try await ChatServerProcess.start(["--postgres", url, "--node-id", "n0"])
            defer { n0.stop() }
            let (n1, port1) = try await ChatServerProcess.start(["--postgres", url, "--node-id", "n1"])
            let alice = ChatServerProcess.transport("alice", port: port0)
            _ = try await alice.connect(resumingAfter: nil)
            let dave = ChatServerProcess.transport("dave", port: port1)
            _ = try await dave.connect(resumingAfter: nil)
            func daveIsOnline() async throws -> Bool? {
                guard case .user(let user) = try await alice.send(.getUser(userId: "dave")).response else { return nil }
                return user.isOnline
            }
            #expect(try await daveIsOnline() == true)
            // n1 dies and comes back under its id before the others find it silent (15 s).
            kill(n1.process.processIdentifier, SIGKILL)
            _ = await n1.exitStatus()
            let restarted = ContinuousClock.now
            let (again, _) = try await ChatServerProcess.start(["--postgres", url, "--node-id", "n1"])
            defer { again.stop() }
            // The restarted node logged its earlier run's devices offline before it listened:
            // n0 has applied it by the next read (a read waits for the log's head).
            #expect(try await daveIsOnline() == false)
            let took = ContinuousClock.now - restarted
            #expect(took < .seconds(15), "dave was counted offline only after \(took), as a silent node")
            await alice.disconnect()
            await dave.disconnect()
        }
    }

    @Test func anEntryANodeCannotReadStopsItSayingWhere() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let name = try postgres.createDatabase()
            let (node, port) = try await ChatServerProcess.start(["--postgres", postgres.url(name), "--node-id", "n0"])
            defer { node.stop() }
            func health() async throws -> (Int, String) {
                let (body, response) = try await URLSession.cookieless.data(
                    from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
            }
            #expect(try await health().0 == 200)
            // An entry of format 9, as a newer server would write it, appended as an append does.
            try postgres.sql(
                """
                WITH head AS (UPDATE chat.log_head SET position = position + 1 WHERE id = 1 RETURNING position)
                INSERT INTO chat.log(position, node, entry) SELECT position, 'future', '\\x090000'::bytea FROM head;
                NOTIFY chat_log
                """, database: name)
            var (status, body) = try await health()
            let start = ContinuousClock.now
            while status == 200, ContinuousClock.now - start < .seconds(10) {
                try await Task.sleep(for: .milliseconds(100))
                (status, body) = try await health()
            }
            #expect(status == 503)
            #expect(body.contains("stopped: this node cannot read the change log's entry at position"), "\(body)")
            #expect(body.contains("format 9") && body.contains("upgrade this node"), "\(body)")
            // Its clients are sent elsewhere: a connection is refused.
            let alice = ChatServerProcess.transport("alice", port: port)
            await #expect(throws: (any Error).self) { _ = try await alice.connect(resumingAfter: nil) }
            node.process.terminate()
            _ = await node.exitStatus()
            #expect(node.standardError.contains("this node stopped serving"), "the log says so")
        }
    }

    /// SIGTERM ends a node whose PostgreSQL has stopped answering (its processes frozen: the
    /// sockets stay open, nothing answers or resets). Closing waits for PostgreSQL a bounded time
    /// at each step. Before, the node never ended: giving its lease back waited for good.
    @Test func aNodeAskedToStopWhilePostgreSQLDoesNotAnswerEnds() async throws {
        try await HeavyTestGate.run {
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let (node, _) = try await ChatServerProcess.start([
                "--postgres", postgres.url(try postgres.createDatabase()), "--node-id", "n0",
            ])
            defer { node.stop() }
            try postgres.freeze()
            defer { try? postgres.thaw() }
            node.process.terminate()
            let start = ContinuousClock.now
            while node.process.isRunning, ContinuousClock.now - start < .seconds(60) {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!node.process.isRunning, "the node had not ended 60 s after SIGTERM")
        }
    }
}
