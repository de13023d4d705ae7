import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct EventDeliveryTests {
    @Test func eventsGoOnlyToConnectionsWhoseUserMaySeeThem() async throws {
        let (server, _) = try await makeServer()
        var alice = try await connected(server, "alice")
        var bob = try await connected(server, "bob")
        var carol = try await connected(server, "carol")
        var boss = try await connected(server, "boss")
        try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "secret", userIds: ["bob"])))
        try await alice.send(.sendMessage(MessageDraft(channelId: "secret", text: "psst")))
        #expect(await bob.drainEvents().map(\.name) == ["channelCreated", "messageNew"])
        #expect(await alice.drainEvents().map(\.name) == ["channelCreated", "messageNew", "readMarkerMoved"])
        #expect(await boss.drainEvents().map(\.name) == ["channelCreated", "channelUpdated"])
        #expect(server.lastEventSequence(userId: "carol") == 0)

        try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "open")))
        #expect(await carol.drainEvents().map(\.name) == ["channelCreated"])
        try await alice.send(.createChannel(ChannelDraft(type: .conversation, userIds: ["bob"])))
        #expect(server.lastEventSequence(userId: "carol") == 1)
        #expect(server.lastEventSequence(userId: "boss") == 3)
    }

    @Test func perConnectionSequenceNumbersIncreaseWithoutGaps() async throws {
        var room = try await Room.make()
        for index in 0..<5 { try await room.aliceSays("\(index)") }
        try await room.bob.send(.startTyping(channelId: "c"))
        let aliceSequences = await room.alice.drain().map(\.sequence)
        let bobSequences = await room.bob.drain().map(\.sequence)
        #expect(aliceSequences == Array(1...aliceSequences.count))
        #expect(bobSequences == Array(1...bobSequences.count))
        #expect(aliceSequences.count != bobSequences.count)
    }

    @Test func channelValuesInEventsCarryTheReceiversView() async throws {
        var room = try await Room.make()
        try await room.aliceSays("hi @bob", mentioning: ["bob"])
        guard case .messageNew(let message, let bobView)? = await room.bob.drainEvents().last else {
            Issue.record("bob got no messageNew")
            return
        }
        #expect(message.sequence == 1)
        #expect(bobView.lastSequence == 1 && bobView.readSequence == 0 && bobView.unreadCount == 1 && bobView.hasMention)
        let aliceEvents = await room.alice.drainEvents()
        guard case .messageNew(_, let aliceView) = aliceEvents[1] else {
            Issue.record("alice got no messageNew")
            return
        }
        #expect(aliceView.readSequence == 1 && aliceView.unreadCount == 0 && !aliceView.hasMention)
        #expect(room.server.unreadCount(userId: "bob", channelId: "c") == bobView.unreadCount)
    }

    @Test func removedAndBannedUsersAreToldAndOutsidersGetTheSummary() async throws {
        var room = try await Room.make(drained: true)
        var carol = try await connected(room.server, "carol")
        try await room.alice.send(.banMembers(channelId: "c", userIds: ["bob"]))
        guard case .memberBanned(let member, let channel)? = await room.bob.drainEvents().first else {
            Issue.record("bob was not told")
            return
        }
        #expect(member.membership == .banned && channel.currentUserMembership == .banned && channel.memberCount == 1)
        #expect(await carol.drainEvents().map(\.name) == ["channelUpdated"])
    }

    @Test func typingExpiresWhenTheClockAdvances() async throws {
        var room = try await Room.make(configuration: ServerConfiguration(typingExpiry: 5))
        try await room.bob.send(.startTyping(channelId: "c"))
        _ = await room.alice.drain()
        #expect(room.server.typingUsers(channelId: "c") == ["bob"])
        room.clock.advance(by: 5)
        #expect(await room.alice.drainEvents() == [.typingStopped(channelId: "c", userId: "bob")])
        #expect(room.server.typingUsers(channelId: "c").isEmpty)
    }

    @Test func muteEndsWithAnUnmuteEventWhenItsPeriodPasses() async throws {
        var room = try await Room.make()
        try await room.alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: 60))
        #expect(await room.bob.drainEvents().map(\.name) == ["channelCreated", "memberMuted"])
        room.clock.advance(by: 60)
        #expect(await room.bob.drainEvents().map(\.name) == ["memberUnmuted"])
        try await room.bob.send(.sendMessage(MessageDraft(channelId: "c", text: "free")))
    }
}
