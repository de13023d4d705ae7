import ChatAPI
import Foundation
import LiveChannels
import ServerTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `chat-server --push-webhook URL --push-webhook-secret-file F` against an operator's push
/// service (`Clients/push_receiver.py`, which checks every signature, the timed one's age, and
/// each delivery id): a member who is away
/// gets one push per device with the pinned fields; an online member and the sender none; a
/// device the service says is gone (410) is removed; a 500 is retried until it goes through;
/// `/metrics` counts each outcome. A missing secret file stops the server with status 2.
@Suite(.timeLimit(.minutes(10))) struct PushWebhookTests {
    static let receiver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/push_receiver.py")

    /// The tests' webhook receiver, started with a secret file of `secret` in a folder of its
    /// own (removed with ``finish()``).
    struct Receiver {
        let folder: URL
        let secret: URL
        let process: Subprocess
        var lines: AsyncStream<String>.Iterator
        /// Where chat-server's `--push-webhook` points.
        let url: String

        init(secret text: String) async throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            secret = folder.appendingPathComponent("webhook.secret")
            try Data(text.utf8).write(to: secret)
            process = try Subprocess(
                URL(fileURLWithPath: "/usr/bin/env"), ["python3", PushWebhookTests.receiver.path, secret.path])
            lines = process.lines.makeAsyncIterator()
            let listening = try #require(await lines.next(), "the receiver did not start: \(process.standardError)")
            url = "http://127.0.0.1:\(listening.split(separator: " ").last ?? "")/push"
        }

        /// chat-server's flags for this receiver.
        var flags: [String] { ["--push-webhook", url, "--push-webhook-secret-file", secret.path] }

        func finish() {
            process.process.terminate()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func awayMembersArePushedThroughTheWebhookSigned() async throws {
        var receiver = try await Receiver(secret: "a shared secret\n")
        defer { receiver.finish() }
        let (server, port) = try await ChatServerProcess.start(["--admin", "boss"] + receiver.flags)
        defer { server.stop() }

        // bob (away), carol (her token is gone), dave (flaky service), erin (online) and ann,
        // the sender: members of one channel.
        var erin: WebSocketTransport?
        for (user, token) in [("bob", "bob-1"), ("carol", "gone-carol"), ("dave", "flaky-dave"), ("erin", "erin-1")] {
            let device = try await Self.connected(user, port: port)
            _ = try await device.send(.addPushDevice(.firebase(token: token)))
            if user == "erin" { erin = device } else { await device.disconnect() }
        }
        let created = try await AdminAPITests.call(
            "POST", "/admin/v1/channels", port: port,
            body: [
                "type": "community", "channelId": "ops", "displayName": "Ops",
                "userIds": ["ann", "bob", "carol", "dave", "erin"],
            ])
        #expect(created.status == 201)
        let sent = try await AdminAPITests.call(
            "POST", "/admin/v1/channels/ops/messages", port: port, body: ["userId": "ann", "text": "Deploy at 5?"])
        #expect(sent.status == 201)

        // bob once, carol once (410), dave three times (500, 500, 200).
        var received: [[String: Any]] = []
        while received.count < 5, let line = await receiver.lines.next() {
            received.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
        }
        #expect(received.allSatisfy { $0["valid"] as? Bool == true }, "every push carries a valid signature")
        #expect(received.allSatisfy { $0["timed"] as? Bool == true }, "and a valid timed one, of now: \(received)")
        let pushes = received.compactMap { $0["push"] as? [String: Any] }
        // One delivery id per push, the same on each of its attempts, in the header and the body:
        // dave's three attempts share one; bob's, carol's and dave's differ.
        #expect(
            received.allSatisfy {
                ($0["push"] as? [String: Any])?["deliveryId"] as? String == $0["delivery"] as? String
            })
        let deliveries = Dictionary(grouping: pushes) { $0["deviceToken"] as? String ?? "" }
            .mapValues { Set($0.compactMap { $0["deliveryId"] as? String }) }
        #expect(deliveries.values.allSatisfy { $0.count == 1 } && Set(deliveries.values.flatMap { $0 }).count == 3)
        #expect(received.allSatisfy { $0["duplicate"] as? Bool == false }, "no push answered 2xx came again")
        #expect(
            pushes.map { $0["deviceToken"] as? String ?? "" }.sorted()
                == ["bob-1", "flaky-dave", "flaky-dave", "flaky-dave", "gone-carol"])
        let bob = try #require(pushes.first { $0["userId"] as? String == "bob" })
        #expect(bob["title"] as? String == "Ops" && bob["body"] as? String == "ann: Deploy at 5?")
        #expect(
            bob["badge"] as? Int == 1 && bob["channelId"] as? String == "ops"
                && bob["provider"] as? String == "firebase")
        #expect(bob["messageId"] as? String == sent.object["messageId"] as? String)

        // carol's token is gone: removed; the others stay.
        var carolsTokens: [Any]? = nil
        for _ in 0..<50 {
            carolsTokens =
                try await AdminAPITests.call("GET", "/admin/v1/users/carol", port: port).object["pushDevices"] as? [Any]
            if carolsTokens?.isEmpty == true { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(carolsTokens?.isEmpty == true)
        #expect(
            (try await AdminAPITests.call("GET", "/admin/v1/users/bob", port: port).object["pushDevices"] as? [Any])?
                .count == 1)

        let metrics = try await URLSession.cookieless.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!).0
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(text.contains(#"chat_push_reasons_total{provider="webhook",result="sent",reason="ok"} 2"#), "\(text)")
        #expect(text.contains(#"chat_push_reasons_total{provider="webhook",result="gone",reason="http410"} 1"#))
        #expect(text.contains("chat_push_queue_depth 0"))
        await erin?.disconnect()
    }

    /// A connected device of `user`, connecting again after `unavailable` (as a client's
    /// reconnect does: on a loaded machine a handshake may fail).
    static func connected(_ user: String, port: Int) async throws -> WebSocketTransport {
        var attempt = 1
        while true {
            let device = ChatServerProcess.transport(user, port: port)
            do {
                _ = try await device.connect(resumingAfter: nil)
                return device
            } catch ChatError.unavailable where attempt < 3 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// On the cluster of the nodes at `ports`: bob registers `device` through the second node
    /// and leaves; ann (made by the admin API) and bob are the members of community channel `c`.
    static func awayMember(_ device: PushDevice, onCluster ports: [Int]) async throws {
        let bob = try await connected("bob", port: ports[1])
        _ = try await bob.send(.addPushDevice(device))
        await bob.disconnect()
        #expect(
            try await AdminAPITests.call(
                "POST", "/admin/v1/channels", port: ports[0],
                body: ["type": "community", "channelId": "c", "userIds": ["ann", "bob"]]
            ).status == 201)
    }

    /// Ann's messages `m<number>` to `c`, each through the next node of `ports` in turn (each
    /// node pushes the messages it took).
    static func send(_ numbers: Range<Int>, spreadOver ports: [Int]) async throws {
        for number in numbers {
            let sent = try await AdminAPITests.call(
                "POST", "/admin/v1/channels/c/messages", port: ports[number % ports.count],
                body: ["userId": "ann", "text": "m\(number)"])
            #expect(sent.status == 201)
        }
    }

    /// Three nodes on one PostgreSQL, each with the webhook: every message sent through any of
    /// them pushes once to the member who is away, never once per node.
    @Test func aClusterPushesEachMessageOnce() async throws {
        try await HeavyTestGate.run {
            var receiver = try await Receiver(secret: "cluster secret")
            defer { receiver.finish() }
            let postgres = try PostgresCluster.start()
            defer { postgres.stop() }
            let url = postgres.url(try postgres.createDatabase())
            let nodes = try await ChatServerProcess.startNodes(3, postgres: url) { _ in receiver.flags }
            defer { Subprocess.stop(nodes.map(\.process)) }
            let ports = nodes.map(\.port)
            try await Self.awayMember(.firebase(token: "bob-phone"), onCluster: ports)
            try await Self.send(0..<12, spreadOver: ports)
            var messageIds: [String] = []
            while messageIds.count < 12, let line = await receiver.lines.next() {
                let push = (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["push"]
                messageIds.append(((push as? [String: Any])?["messageId"] as? String) ?? "?")
            }
            #expect(Set(messageIds).count == 12, "one push per message: \(messageIds)")
            // Nothing more comes (a second node pushing the same message would be late by at most
            // its poll): wait a moment and look at the counters of every node.
            try await Task.sleep(for: .seconds(1))
            var sentByNodes = 0
            for port in ports {
                let metrics = try await URLSession.cookieless.data(
                    from: URL(string: "http://127.0.0.1:\(port)/metrics")!
                ).0
                let line = String(decoding: metrics, as: UTF8.self).split(separator: "\n")
                    .first { $0.hasPrefix(#"chat_push_reasons_total{provider="webhook",result="sent",reason="ok"}"#) }
                sentByNodes += line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            }
            #expect(sentByNodes == 12)
        }
    }

    /// The terminal chat's `push`: bob registers a made-up token and leaves; alice's message to
    /// #general reaches the webhook as a push for bob's token. After `notify general off`, the
    /// next one does not.
    @Test func aTerminalUsersMadeUpTokenGetsPushesThroughTheWebhook() async throws {
        var receiver = try await Receiver(secret: "terminal secret")
        defer { receiver.finish() }
        let (server, port) = try await ChatServerProcess.start(receiver.flags)
        defer { server.stop() }
        func terminal(as user: String, _ script: String) async throws -> String {
            let process = try Subprocess(
                Subprocess.product("chat-terminal"),
                ["--server", "ws://127.0.0.1:\(port)/v1/connect", "--as", user, "--no-cache"],
                input: script)
            let output = await process.remainingOutput()
            #expect(await process.exitStatus() == 0, "\(user): \(output) \(process.standardError)")
            return output
        }
        let bob = try await terminal(as: "bob", "push\nquit\n")
        let token = "626f62" + String(repeating: "a5", count: 29)
        #expect(bob.contains("bob registered the push token \(token.prefix(12))…; while bob is away"), "\(bob)")
        _ = try await terminal(as: "alice", "send general hi bob\nquit\n")
        let line = try #require(await receiver.lines.next())
        let push = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(push["valid"] as? Bool == true)
        let body = try #require(push["push"] as? [String: Any])
        #expect(body["userId"] as? String == "bob" && body["deviceToken"] as? String == token)
        #expect(body["body"] as? String == "alice: hi bob" && body["provider"] as? String == "apn")

        // bob turns #general's pushes off: alice's next message pushes nothing, her one after
        // bob turns them on again does.
        _ = try await terminal(as: "bob", "notify general off\nquit\n")
        _ = try await terminal(as: "alice", "send general quiet now\nquit\n")
        _ = try await terminal(as: "bob", "notify general on\nquit\n")
        _ = try await terminal(as: "alice", "send general and now?\nquit\n")
        let next = try #require(await receiver.lines.next())
        #expect(next.contains("alice: and now?") && !next.contains("quiet now"), "\(next)")
    }

    @Test func aWebhookWithoutItsSecretStopsTheServerNamingTheFile() async throws {
        let missing = "/nonexistent/webhook.secret"
        let process = try Subprocess(
            ChatServerProcess.executable,
            [
                "--dev", "--port", "0", "--push-webhook", "http://127.0.0.1:9/push", "--push-webhook-secret-file",
                missing,
            ])
        #expect(await process.exitStatus() == 2)
        #expect(process.standardError.contains(missing))
    }
}
