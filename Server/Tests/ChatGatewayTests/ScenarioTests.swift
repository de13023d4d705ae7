import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing
import ServerTestSupport

/// The scenarios that matter, through the network door: clients on `WebSocketTransport` and
/// `NIOWebSocketConnector`, over loopback, against a real `ChatGateway`. (The root package runs
/// the same SDK over the embedded transport and over the wire protocol in memory.)
@Suite(.timeLimit(.minutes(1))) struct ScenarioTests {
    private func community(_ id: String, with userIds: [String]) -> CommunityChannelBuilder {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setUserIds(userIds)
        return builder
    }

    @Test func channelsMessagesUnreadAndTyping() async throws {
        try await GatewayHarness.run { harness in
            let alice = try await harness.client("alice")
            let bob = try await harness.client("bob")
            let channel = try await ChannelRepository(client: alice).createChannel(
                with: community("ops", with: ["bob"]))
            #expect(channel.memberCount == 2)
            let list = ChannelRepository(client: bob).getChannels(query: ChannelListQuery())
            let messages = MessageRepository(client: alice)
            try await messages.sendMessage(channelId: "ops", text: "hi @bob", mentionedUserIds: ["bob"])
            try await messages.sendMessage(channelId: "ops", text: "are you there?", mentionedUserIds: [])
            await bob.synchronize()
            #expect(ChannelRepository(client: bob).totalUnreadCount == 2)
            #expect(list.snapshots.map(\.channelId) == ["ops"] && list.snapshots.first?.hasMention == true)
            #expect(list.snapshots.first?.unreadCount == harness.server.unreadCount(userId: "bob", channelId: "ops"))

            try await MessageRepository(client: bob).startTyping(channelId: "ops")
            await alice.synchronize()
            #expect(MessageRepository(client: alice).getTypingUsers(channelId: "ops").snapshot == ["bob"])

            try await ChannelParticipation(client: bob, channelId: "ops").startReading()
            await bob.synchronize()
            #expect(ChannelRepository(client: bob).totalUnreadCount == 0)
        }
    }

    @Test func moderationReachesTheModeratedUser() async throws {
        try await GatewayHarness.run { harness in
            let alice = try await harness.client("alice")
            let bob = try await harness.client("bob")
            _ = try await ChannelRepository(client: alice).createChannel(with: community("ops", with: ["bob"]))
            try await ChannelModeration(client: alice, channelId: "ops").banMembers(["bob"])
            await bob.synchronize()
            let ops = ChannelRepository(client: bob).getChannel("ops")
            await bob.synchronize()
            #expect(ops.snapshot?.currentUserMembership == .banned)
            await #expect(throws: ChatError.self) {
                try await MessageRepository(client: bob).sendMessage(
                    channelId: "ops", text: "hey", mentionedUserIds: [])
            }
        }
    }

    @Test func aDroppedConnectionReconnectsAndCatchesUp() async throws {
        try await GatewayHarness.run { harness in
            let alice = try await harness.client("alice")
            let bob = try await harness.client("bob")
            _ = try await ChannelRepository(client: alice).createChannel(with: community("ops", with: ["bob"]))
            await bob.synchronize()
            harness.server.faults.dropConnection(userId: "bob", deviceId: "phone")
            for index in 0..<5 {
                try await MessageRepository(client: alice).sendMessage(
                    channelId: "ops", text: "m\(index)", mentionedUserIds: [])
            }
            for await state in bob.connectionState.values where state == .connected { break }
            await bob.synchronize()
            let messages = await MessageRepository(client: bob).getMessages(channelId: "ops", pageSize: 20).loaded()
            #expect(messages.snapshots == harness.server.messages(channelId: "ops"))
            #expect(ChannelRepository(client: bob).totalUnreadCount == 5)
        }
    }

    @Test func aShutdownClosesConnectionsWith1001() async throws {
        try await GatewayHarness.run { harness in
            let alice = harness.transport("alice")
            _ = try await alice.connect(resumingAfter: nil)
            await harness.shutdown()
            for await item in alice.events {
                guard case .disconnected(let reason) = item else { continue }
                #expect("\(reason)".contains("1001"))
                break
            }
        }
    }
}
