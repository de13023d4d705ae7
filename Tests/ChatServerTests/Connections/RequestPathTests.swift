import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct RequestPathTests {
    @Test func aFailedRequestChangesNothingAndEmitsNothing() async throws {
        var room = try await Room.make(drained: true)
        let before = room.server.channel("c")
        let sequence = room.server.lastEventSequence(userId: "bob")
        let bigText = String(repeating: "x", count: InputLimits.maxMetadataBytes + 1)
        let attempts: [ChatRequest] = [
            .updateChannel(ChannelChanges(channelId: "c", displayName: "ok", metadata: ["big": .string(bigText)])),
            .addMembers(channelId: "c", userIds: ["carol", "ghost"]),
            .sendMessage(MessageDraft(channelId: "c", text: "")),
            .muteMembers(channelId: "c", userIds: ["bob"], period: -3),
        ]
        for request in attempts {
            await #expect(throws: ChatError.self) { try await room.alice.send(request) }
        }
        #expect(room.server.channel("c") == before)
        #expect(room.server.lastEventSequence(userId: "bob") == sequence)
        #expect(room.server.members(channelId: "c").map(\.userId) == ["alice", "bob"])
        try await room.aliceSays("still works")
        #expect(await room.bob.drainEvents().map(\.name) == ["messageNew"])
    }

    @Test func publicChannelUpdatesReachEveryone() async throws {
        let room = try await Room.make(drained: true)
        var carol = try await connected(room.server, "carol")
        try await room.alice.send(
            .updateChannel(ChannelChanges(channelId: "c", displayName: "Renamed", metadata: ["state": "LA"])))
        guard case .channelUpdated(let channel)? = await carol.drainEvents().first else {
            Issue.record("carol was not told")
            return
        }
        #expect(channel.displayName == "Renamed" && channel.metadata == ["state": "LA"])
        #expect(channel.currentUserMembership == Membership.none)
    }

    @Test func rateLimitedRequestsCarryRetryAfter() async throws {
        let room = try await Room.make(drained: true)
        try await room.alice.send(.setRateLimit(channelId: "c", period: -1, limit: 1, window: 30))
        try await room.bob.send(.sendMessage(MessageDraft(channelId: "c", text: "one")))
        room.clock.advance(by: 10)
        await #expect(throws: ChatError.rateLimited(retryAfter: 20)) {
            try await room.bob.send(.sendMessage(MessageDraft(channelId: "c", text: "two")))
        }
        try await room.alice.send(.removeRateLimit(channelId: "c"))
        try await room.bob.send(.sendMessage(MessageDraft(channelId: "c", text: "two")))
    }

    @Test func consoleBroadcastAndDeleteReachMembers() async throws {
        let (server, _) = try await makeServer()
        var bob = try await connected(server, "bob")
        try await server.createChannel(
            type: .broadcast, channelId: "news", displayName: "News", userIds: ["bob", "boss"])
        try await server.sendMessage(as: "boss", channelId: "news", text: "launch")
        #expect(server.unreadCount(userId: "bob", channelId: "news") == 1)
        try await server.deleteChannel("news")
        let events = await bob.drainEvents()
        #expect(events.map(\.name) == ["channelCreated", "messageNew", "channelDeleted"])
        guard case .channelDeleted(let channel)? = events.last else { return }
        #expect(channel.isDeleted && channel.unreadCount == 0)
        #expect(server.totalUnreadCount(userId: "bob") == 0)
    }
}
