import ChatAPI
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/cluster`, as README shows it: one URL in front of three nodes; an operator uses the
/// console through it in Chromium; two people chat through it while a node is SIGKILLed; Ctrl-C
/// stops everything.
@Suite(.serialized) struct ClusterScriptTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/cluster")

    @Test func twoPeopleChatThroughTheClusterWhileANodeIsKilled() async throws {
        try await HeavyTestGate.run { try await chatWhileANodeIsKilled() }
    }

    private func chatWhileANodeIsKilled() async throws {
        let port = Int.random(in: 20_000...45_000)
        // Started as from a terminal: a child of this process inherits its threads' blocked
        // signals, which a shell could then never trap; python unblocks them and becomes bash.
        let cluster = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv('/bin/bash', ['bash'] + sys.argv[1:])",
                Self.script.path, "--nodes", "3", "--port", "\(port)", "--", "--admin", "boss",
            ],
            environment: ["CHAT_SERVER_BIN": Subprocess.product("chat-server").path])
        var lines = cluster.lines.makeAsyncIterator()
        var url: URL?
        var pids: [Int32] = []
        while let line = await lines.next() {
            if let match = line.wholeMatch(of: /cluster: (ws:\/\/\S+) .*/) { url = URL(string: String(match.1)) }
            if let match = line.wholeMatch(of: /cluster: node \S+ port \d+ pid (\d+)/) { pids.append(Int32(match.1)!) }
            if pids.count == 3 { break }
        }
        let connectURL = try #require(url, "scripts/cluster printed no URL: \(cluster.standardError)")
        #expect(connectURL.absoluteString == "ws://127.0.0.1:\(port)/v1/connect")

        // An operator opens the console through nginx in Chromium: signs in, and the page's
        // calls and its WebSocket, spread over the nodes, are all taken (the nodes share the
        // secret their sessions are signed with); the overview lists the three nodes.
        let console = try await ConsoleBrowser.drive(["\(port)", ConsoleBrowser.screenshots(), "cluster", "3"])
        #expect(console.contains("the overview lists ['node1', 'node2', 'node3']"), "\(console)")
        func transport(_ user: String) -> WebSocketTransport {
            WebSocketTransport(
                url: connectURL, userId: user, token: { "dev:\(user)" }, connector: NIOWebSocketConnector())
        }
        let alice = transport("alice")
        let bob = transport("bob")
        for person in [alice, bob] { _ = try await person.connect(resumingAfter: nil) }
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "general", userIds: ["bob"])))
        let first = Task { await ClusterProcessTests.nextEvent(of: bob) { $0.newMessageText == "before" } }
        _ = try await alice.send(.sendMessage(MessageDraft(channelId: "general", text: "before")))
        let heardFirst = await first.value
        #expect(heardFirst != nil, "bob did not hear alice through the cluster")

        // The console signs in through nginx: the same-origin check sees the Host the browser
        // sent (nginx forwards it), so the console's own page is not taken for another site.
        let signIn = try await Self.signInToTheConsole(port: port, token: "dev:boss")
        #expect(signIn.status == 200, "signing in through nginx: \(signIn.status) \(signIn.body)")

        // A node dies. Whoever was on it reconnects through nginx to another node and goes on.
        kill(pids[0], SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let bobAgain = transport("bob")
        _ = try await bobAgain.connect(resumingAfter: nil)
        let second = Task { await ClusterProcessTests.nextEvent(of: bobAgain) { $0.newMessageText == "after" } }
        var sent = false
        for _ in 0..<3 where !sent {
            let aliceAgain = transport("alice")
            guard (try? await aliceAgain.connect(resumingAfter: nil)) != nil else { continue }
            sent = (try? await aliceAgain.send(.sendMessage(MessageDraft(channelId: "general", text: "after")))) != nil
            await aliceAgain.disconnect()
        }
        #expect(sent, "alice could not send after a node was killed")
        let heardSecond = await second.value
        #expect(heardSecond != nil, "bob did not hear alice after a node was killed")
        for person in [alice, bob, bobAgain] { await person.disconnect() }

        // Ctrl-C stops everything.
        kill(cluster.process.processIdentifier, SIGINT)
        #expect(await cluster.exitStatus() == 0)
        let said = cluster.standardError  // a pipe: read once
        #expect(said.contains("cluster: stopped"))
        // The node killed is reported in words by the script, never by bash's job line.
        #expect(!said.contains("Killed"), "\(said)")
        for pid in pids { #expect(kill(pid, 0) != 0, "node pid \(pid) still runs after Ctrl-C") }
    }

    /// `POST /console/session` through the cluster's nginx, as the console's page sends it (its
    /// `Origin` the address the browser opened): the status and the answer's text.
    static func signInToTheConsole(port: Int, token: String) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/console/session")!)
        request.httpMethod = "POST"
        request.setValue("http://127.0.0.1:\(port)", forHTTPHeaderField: "Origin")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["token": token])
        let (data, response) = try await URLSession.cookieless.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
