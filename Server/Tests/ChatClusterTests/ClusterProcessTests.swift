import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Three `chat-server` processes on one real PostgreSQL are one service: events and rules cross
/// nodes, a device resumes on another node, and the devices of a SIGKILLed node are counted
/// offline by the others.
@Suite(.serialized) struct ClusterProcessTests {
    /// Waits (at most `seconds`) for the next event of `transport` that `matches`.
    static func nextEvent(
        of transport: WebSocketTransport, within seconds: Double = 10,
        _ matches: @escaping @Sendable (ChatEvent) -> Bool
    ) async -> EventEnvelope? {
        await withTaskGroup(of: EventEnvelope?.self) { group in
            group.addTask {
                for await item in transport.events {
                    if case .event(let envelope) = item, matches(envelope.event) { return envelope }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func threeNodesAreOneService() async throws {
        try await HeavyTestGate.run { try await threeNodes() }
    }

    private func threeNodes() async throws {
        let postgres = try PostgresCluster.start()
        defer { postgres.stop() }
        let name = try postgres.createDatabase()
        var nodes: [(process: Subprocess, port: Int)] = []
        for index in 0..<3 {
            nodes.append(
                try await ChatServerProcess.start(["--postgres", postgres.url(name), "--node-id", "n\(index)"]))
        }
        defer { Subprocess.stop(nodes.map(\.process)) }

        let alice = ChatServerProcess.transport("alice", port: nodes[0].port)
        let bob = ChatServerProcess.transport("bob", port: nodes[1].port)
        let carol = ChatServerProcess.transport("carol", port: nodes[2].port)
        for transport in [alice, bob, carol] { _ = try await transport.connect(resumingAfter: nil) }
        _ = try await alice.send(
            .createChannel(ChannelDraft(type: .community, channelId: "ops", userIds: ["bob", "carol"])))

        // Events cross nodes: carol (node 2) sends, bob (node 1) hears it.
        let heard = Task { await Self.nextEvent(of: bob) { $0.newMessageText == "from carol" } }
        _ = try await carol.send(.sendMessage(MessageDraft(channelId: "ops", text: "from carol")))
        let heardEnvelope = await heard.value
        let envelope = try #require(heardEnvelope, "bob on node 1 did not hear carol's message from node 2")

        // A ban answered by node 0 is in force on node 2 at once.
        _ = try await alice.send(.banMembers(channelId: "ops", userIds: ["carol"]))
        await #expect(throws: ChatError.self) {
            _ = try await carol.send(.sendMessage(MessageDraft(channelId: "ops", text: "banned")))
        }

        // Bob moves to node 2 and resumes exactly after his last event.
        await bob.disconnect()
        _ = try await alice.send(.sendMessage(MessageDraft(channelId: "ops", text: "while bob moves")))
        let moved = ChatServerProcess.transport("bob", port: nodes[2].port)
        let replay = Task { await Self.nextEvent(of: moved) { $0.newMessageText == "while bob moves" } }
        let result = try await moved.connect(resumingAfter: envelope.sequence)
        #expect(result.status == .resumed)
        let replayedEnvelope = await replay.value
        let replayed = try #require(replayedEnvelope, "the resume on node 2 did not replay the missed message")
        #expect(replayed.sequence > envelope.sequence)

        // Node 1 is killed with dave on it: the others count him offline within 30 s.
        let dave = ChatServerProcess.transport("dave", port: nodes[1].port)
        _ = try await dave.connect(resumingAfter: nil)
        func daveIsOnline() async throws -> Bool? {
            guard case .user(let user) = try await alice.send(.getUser(userId: "dave")).response else { return nil }
            return user.isOnline
        }
        #expect(try await daveIsOnline() == true)
        kill(nodes[1].process.process.processIdentifier, SIGKILL)
        let start = ContinuousClock.now
        while try await daveIsOnline() == true, ContinuousClock.now - start < .seconds(40) {
            try await Task.sleep(for: .milliseconds(500))
        }
        let took = ContinuousClock.now - start
        #expect(try await daveIsOnline() == false)
        #expect(took < .seconds(30), "dave was counted offline after \(took)")
        for transport in [alice, moved, carol] { await transport.disconnect() }
    }
}

extension ClusterProcessTests {
    /// The pinned cross-node rules, one by one, by a Python client written from the protocol
    /// document (`Clients/cluster_rules.py`): three nodes with the default limits, and two nodes
    /// of another database with `--max-devices 2 --messages-per-second 1`.
    @Test func aPythonClientChecksEveryCrossNodeRule() async throws {
        try await HeavyTestGate.run { try await pythonRules() }
    }

    private func pythonRules() async throws {
        let postgres = try PostgresCluster.start()
        defer { postgres.stop() }
        let open = try postgres.createDatabase()
        let capped = try postgres.createDatabase()
        var nodes: [(process: Subprocess, port: Int)] = []
        defer { Subprocess.stop(nodes.map(\.process)) }
        for index in 0..<3 {
            nodes.append(
                try await ChatServerProcess.start(["--postgres", postgres.url(open), "--node-id", "n\(index)"]))
        }
        for index in 0..<2 {
            nodes.append(
                try await ChatServerProcess.start([
                    "--postgres", postgres.url(capped), "--node-id", "c\(index)", "--max-devices", "2",
                    "--messages-per-second", "1",
                ]))
        }
        let ports = nodes.map { "\($0.port)" }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Clients/cluster_rules.py")
        let python = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", script.path, ports[0..<3].joined(separator: ","), ports[3..<5].joined(separator: ",")],
            environment: try PythonEnvironment.environment())
        var output: [String] = []
        for await line in python.lines { output.append(line) }
        let status = await python.exitStatus()
        let checked = output.filter { $0.hasPrefix("ok: ") }.count
        #expect(
            status == 0 && output.last == "OK" && checked >= 18,
            "exit \(status), \(checked) rules held:\n\(output.joined(separator: "\n"))\n\(python.standardError)")
    }
}

extension ChatEvent {
    /// The text of a new message, for compact assertions.
    var newMessageText: String? {
        if case .messageNew(let message, _) = self { return message.text }
        return nil
    }
}
