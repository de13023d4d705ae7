import ChatAPI
import ChatServer
import ChatServerPostgres
import Foundation
import LiveChannels
import LiveChannelsNIO
import NIOConcurrencyHelpers
import Testing
import ServerTestSupport
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Faults under load, with real parts: a `chat-server --postgres` process killed with SIGKILL
/// at random points while devices send, PostgreSQL stopped (`pg_ctl -m fast` and
/// `-m immediate`) and started again under a running server. Whatever was acknowledged is in
/// the database afterwards — 0 acknowledged messages lost.
// 15 minutes: its SIGKILL test waits its turn among the heavy tests (HeavyTestGate).
@Suite(.timeLimit(.minutes(15))) struct PostgresFaultTests {
    /// The acknowledged texts, from any sender; the failed sends; whether the load should stop.
    private final class Acknowledged: Sendable {
        private let texts = NIOLockedValueBox<[String]>([])
        private let failedSends = NIOLockedValueBox(0)
        private let stopped = NIOLockedValueBox(false)
        func append(_ text: String) { texts.withLockedValue { $0.append(text) } }
        var all: [String] { texts.withLockedValue { $0 } }
        func failed() { failedSends.withLockedValue { $0 += 1 } }
        var failures: Int { failedSends.withLockedValue { $0 } }
        func stop() { stopped.withLockedValue { $0 = true } }
        var isStopped: Bool { stopped.withLockedValue { $0 } }
    }

    /// Every text of `channelId` in the database, read by `userId` through a server opened on it.
    private func storedTexts(of channelId: String, readBy userId: String, in cluster: PostgresCluster, _ name: String)
        async throws -> Set<String>
    {
        // chat-server --postgres is a node of a cluster: the database is read as one more node.
        let server = try await ChatServer(
            opening: .cluster(PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name))), nodeId: "auditor"))
        let device = server.connection(userId: userId, deviceId: "auditor")
        _ = try await device.connect(resumingAfter: nil)
        var texts: Set<String> = []
        var after = 0
        while true {
            let query = MessagePageQuery(channelId: channelId, position: .after(sequence: after), limit: 100)
            guard case .messages(let page) = try await device.send(.queryMessages(query)).response else { break }
            texts.formUnion(page.messages.map(\.text))
            after = page.messages.last?.sequence ?? after
            if !page.hasNext { break }
        }
        await device.disconnect()
        await server.close()
        return texts
    }

    @Test func aNodeKilledAtRandomPointsUnderLoadLosesNoAcknowledgedMessage() async throws {
        try await HeavyTestGate.run { try await killedAtRandomPoints() }
    }

    private func killedAtRandomPoints() async throws {
        let seed = SeededGenerator.testSeed(38)
        var random = SeededGenerator(seed: seed)
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let storage = ["--postgres", cluster.url(name), "--no-limits"]
        let acknowledged = Acknowledged()
        let senders = ["ann", "ben", "cat", "dan"]
        let runs = 20
        for run in 0..<runs {
            let (server, port) = try await ChatServerProcess.start(storage)
            if run == 0 {
                let owner = ChatServerProcess.transport("ann", port: port)
                _ = try await owner.connect(resumingAfter: nil)
                _ = try await owner.send(.createChannel(ChannelDraft(type: .community, channelId: "room", userIds: [])))
                await owner.disconnect()
            }
            // Each sender sends until its connection dies with the node.
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for sender in senders {
                        group.addTask {
                            let transport = ChatServerProcess.transport(sender, port: port)
                            guard (try? await transport.connect(resumingAfter: nil)) != nil else { return }
                            if run == 0 { _ = try? await transport.send(.joinChannel(channelId: "room")) }
                            for number in 0... {
                                let text = "\(sender) run \(run) #\(number)"
                                guard
                                    (try? await transport.send(
                                        .sendMessage(MessageDraft(channelId: "room", text: text)))) != nil
                                else { break }
                                acknowledged.append(text)
                            }
                            await transport.disconnect()
                        }
                    }
                }
            }
            // Under load in every run (a busy machine takes a while to connect), then killed at a
            // seeded point.
            let before = acknowledged.all.count
            for _ in 0..<300 where acknowledged.all.count == before {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &random)))
            kill(server.process.processIdentifier, SIGKILL)
            #expect(await server.exitStatus() == SIGKILL, "killed, run \(run)")
            await load.value
        }
        let sent = acknowledged.all
        #expect(sent.count >= runs, "load in every run (\(sent.count) acknowledged)")
        let stored = try await storedTexts(of: "room", readBy: "ann", in: cluster, name)
        let lost = sent.filter { !stored.contains($0) }
        print("SIGKILL runs: \(runs), acknowledged \(sent.count), lost \(lost.count) (seed \(seed))")
        #expect(lost.isEmpty, "seed \(seed): \(lost.count) of \(sent.count) acknowledged lost, e.g. \(lost.prefix(5))")
    }

    @Test(arguments: ["fast", "immediate"])
    func postgresRestartedUnderLoadLosesNoAcknowledgedMessage(mode: String) async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let server = try await ChatServer(
            opening: .cluster(PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name))), nodeId: "n0"))
        let senders = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]
        try await server.createChannel(type: .community, channelId: "room", userIds: senders)
        let acknowledged = Acknowledged()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for sender in senders {
                    group.addTask {
                        var number = 0
                        while !acknowledged.isStopped {
                            let text = "\(sender) #\(number)"
                            number += 1
                            do {
                                _ = try await server.sendMessage(as: sender, channelId: "room", text: text)
                                acknowledged.append(text)
                            } catch {
                                acknowledged.failed()
                                try? await Task.sleep(for: .milliseconds(50))
                            }
                        }
                    }
                }
            }
        }
        // Under load first: some sends acknowledged (a busy machine takes a while to start).
        for _ in 0..<300 where acknowledged.all.count < 2 * senders.count {
            try await Task.sleep(for: .milliseconds(100))
        }
        let beforeStop = acknowledged.all.count
        // Three times: stopped under load, started again a second later, working again without
        // a restart of the server (more acknowledged after each).
        var recoveries = 0
        for _ in 0..<3 {
            try cluster.stop(mode: mode)
            try await Task.sleep(for: .seconds(1))
            try cluster.restart()
            let afterRestart = acknowledged.all.count
            for _ in 0..<150 {
                try await Task.sleep(for: .milliseconds(100))
                if acknowledged.all.count > afterRestart + senders.count {
                    recoveries += 1
                    break
                }
            }
        }
        acknowledged.stop()
        await load.value
        await server.close()
        #expect(beforeStop > 0, "load before the stop")
        #expect(recoveries == 3, "sends succeed again after PostgreSQL is back (mode \(mode))")
        let sent = acknowledged.all
        let stored = try await storedTexts(of: "room", readBy: "ann", in: cluster, name)
        let lost = sent.filter { !stored.contains($0) }
        print(
            "pg_ctl -m \(mode) three times: acknowledged \(sent.count), failed sends \(acknowledged.failures), lost \(lost.count)"
        )
        #expect(lost.isEmpty, "mode \(mode): \(lost.count) of \(sent.count) acknowledged lost, e.g. \(lost.prefix(5))")
    }

    /// PostgreSQL away under a connected device, over the wire: its send fails within 10 s with
    /// `unavailable` and its connection stays open; `/healthz` answers 503; PostgreSQL back, the
    /// same connection sends again and `/healthz` answers 200 — no restart of anything.
    @Test func whilePostgresIsAwayConnectionsStayOpenAndHealthSaysSo() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        let name = try cluster.createDatabase()
        let server = try await ChatServer(
            opening: .cluster(PostgresServerDatabase(try PostgresEndpoint(url: cluster.url(name))), nodeId: "n0"))
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann"])
        try await GatewayHarness.run(server: server) { harness in
            func health() async throws -> Int {
                let (_, response) = try await URLSession.cookieless.data(
                    from: URL(string: "http://127.0.0.1:\(harness.port)/healthz")!)
                return (response as? HTTPURLResponse)?.statusCode ?? 0
            }
            let device = WebSocketTransport(
                url: harness.url, userId: "ann", token: { "dev:ann" }, connector: NIOWebSocketConnector())
            _ = try await device.connect(resumingAfter: nil)
            _ = try await device.send(.sendMessage(MessageDraft(channelId: "room", text: "before")))
            #expect(try await health() == 200)
            try cluster.kill()
            let started = ContinuousClock.now
            do {
                _ = try await device.send(.sendMessage(MessageDraft(channelId: "room", text: "while away")))
                Issue.record("acknowledged while PostgreSQL was away")
            } catch ChatError.unavailable {
            }
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(try await health() == 503)
            try cluster.restart()
            var sent = false
            for _ in 0..<60 where !sent {
                // The same connection: a closed one would never send again without a connect.
                sent = (try? await device.send(.sendMessage(MessageDraft(channelId: "room", text: "after")))) != nil
                if !sent { try await Task.sleep(for: .milliseconds(500)) }
            }
            #expect(sent, "the connection stayed open and works once PostgreSQL is back")
            #expect(try await health() == 200)
            await device.disconnect()
        }
        await server.close()
    }
}
