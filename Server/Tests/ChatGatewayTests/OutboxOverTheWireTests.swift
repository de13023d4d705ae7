import ChatAPI
import ChatServer
import Foundation
@testable import LiveChannels
import LiveChannelsNIO
import Testing
import ServerTestSupport

/// The outbox over WebSocket: a send whose connection drops after the server stored it, and
/// before the answer, is stored once; messages created while the gateway is unreachable are sent
/// once the client is connected again, in creation order.
@Suite(.timeLimit(.minutes(1))) struct OutboxOverTheWireTests {
    /// Checks `condition` every 10 ms for up to 10 s.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aSendWhoseAnswerIsLostOnTheWireIsStoredOnce() async throws {
        let server = ChatServer()
        _ = try await server.registerUser(id: "bob")
        try await server.createChannel(type: .community, channelId: "room", userIds: ["alice", "bob"])
        try await GatewayHarness.run(server: server) { harness in
            let alice = try await harness.client("alice")
            let repository = MessageRepository(client: alice)
            let list = await repository.getMessages(channelId: "room").loaded()
            server.faults.dropAfterNext(userId: "alice", deviceId: "phone")
            let local = try repository.createMessage(channelId: "room", text: "once over the wire")
            #expect(local.syncState == .syncing)
            #expect(await eventually { list.snapshots.first?.syncState == .synced })
            #expect(list.snapshots.map(\.messageId) == [local.messageId])
            #expect(server.messages(channelId: "room").map(\.messageId) == [local.messageId])

            // The same for `sendMessage`: it returns the stored message, once. (The row may be
            // synced by the message's event before the drop reaches the client: wait for the
            // client to have seen the drop and connected again.)
            #expect(
                await eventually {
                    alice.sync.endedConnectionCount == 1 && alice.connectionState.snapshot == .connected
                })
            server.faults.dropAfterNext(userId: "alice", deviceId: "phone")
            let sent = try await repository.sendMessage(channelId: "room", text: "and again", mentionedUserIds: [])
            #expect(sent.sequence == 2)
            #expect(server.messages(channelId: "room").map(\.text) == ["once over the wire", "and again"])

            // Created while the connection is down: sent once it is back, in creation order.
            await alice.disconnect()
            for text in ["first", "second", "third"] { try repository.createMessage(channelId: "room", text: text) }
            #expect(list.snapshots.suffix(3).allSatisfy { $0.syncState == .syncing })
            try await alice.connect()
            #expect(await eventually { server.messages(channelId: "room").count == 5 })
            #expect(server.messages(channelId: "room").suffix(3).map(\.text) == ["first", "second", "third"])
            #expect(await eventually { list.snapshots.allSatisfy { $0.syncState == .synced } })
            await alice.close()
        }
    }
}
