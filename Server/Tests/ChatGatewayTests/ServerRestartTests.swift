import ChatAPI
import Foundation
import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport

/// A real `chat-server --dev` process restarted under connected SDK clients (the issue's
/// reproduction): before epochs, both clients reconnected by themselves and then never showed
/// anything new; now they show only the new server's history.
@Suite(.timeLimit(.minutes(1))) struct ServerRestartTests {
    private let chatServer = Subprocess.product("chat-server")

    /// Starts `chat-server --dev` (in memory) on `port` and returns it with its port.
    private func start(port: Int) async throws -> (Subprocess, Int) {
        let server = try Subprocess(
            chatServer, ["--dev", "--port", "\(port)"], environment: ["CHAT_SERVER_SECRET": ""])
        var lines = server.lines.makeAsyncIterator()
        let first = try #require(await lines.next(), "no first line from chat-server: \(server.standardError)")
        let listening = try #require(
            first.wholeMatch(of: /listening on ws:\/\/127\.0\.0\.1:(\d+)\/v1\/connect/).flatMap { Int($0.1) })
        return (server, listening)
    }

    private func client(_ userId: String, port: Int) -> ChatClient {
        let transport = WebSocketTransport(
            url: URL(string: "ws://127.0.0.1:\(port)/v1/connect")!, userId: userId, deviceId: "laptop",
            token: { "dev:\(userId)" }, connector: NIOWebSocketConnector())
        let retry = ReconnectPolicy(maximumAttempts: 200) { _ in try await Task.sleep(for: .milliseconds(50)) }
        return ChatClient(transport: transport, reconnectPolicy: retry)
    }

    private func createGeneral(by client: ChatClient) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId("general")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    private func say(_ text: String, by client: ChatClient) async throws {
        _ = try await MessageRepository(client: client).sendMessage(
            channelId: "general", text: text, mentionedUserIds: [])
    }

    /// Checks `condition` every 20 ms for up to 15 s.
    private func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<750 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }

    @Test func clientsOfARestartedInMemoryServerShowOnlyTheNewHistory() async throws {
        // A port of our own choosing: one of port 0's might be given to another test's server
        // or client while this one is down.
        var (server, port) = try await ChatServerProcess.startOnFixedPort([])
        let alice = client("alice", port: port)
        let bob = client("bob", port: port)
        try await alice.connect()
        try await bob.connect()
        try await createGeneral(by: alice)
        for text in ["old 1", "old 2", "old 3"] { try await say(text, by: alice) }
        try await say("old from bob", by: bob)
        let aliceMessages = MessageRepository(client: alice).getMessages(channelId: "general")
        let bobMessages = MessageRepository(client: bob).getMessages(channelId: "general")
        #expect(await eventually { aliceMessages.snapshots.count == 4 && bobMessages.snapshots.count == 4 })

        // Ctrl-C the server and start it again on the same port.
        server.process.interrupt()
        #expect(await server.exitStatus() == 0)
        (server, _) = try await start(port: port)
        defer { server.stop() }
        // Both reconnect by themselves; alice creates #general again and both write.
        var created = false
        for _ in 0..<100 where !created {
            do {
                try await createGeneral(by: alice)
                created = true
            } catch {
                try await Task.sleep(for: .milliseconds(50))  // not reconnected yet
            }
        }
        #expect(created)
        try await say("new", by: alice)
        var sent = false
        for _ in 0..<100 where !sent {
            do {
                try await say("new from bob", by: bob)
                sent = true
            } catch {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(sent)
        let expected = ["new", "new from bob"]
        #expect(
            await eventually { aliceMessages.snapshots.map(\.text) == expected },
            "\(aliceMessages.snapshots.map(\.text))")
        #expect(
            await eventually { bobMessages.snapshots.map(\.text) == expected }, "\(bobMessages.snapshots.map(\.text))")
        // The history command: a page read now shows the new server's messages only.
        let history = MessageRepository(client: bob).getMessages(channelId: "general")
        #expect(await eventually { history.loadingStatus == .loaded && history.snapshots.map(\.text) == expected })
        await alice.close()
        await bob.close()
    }
}
