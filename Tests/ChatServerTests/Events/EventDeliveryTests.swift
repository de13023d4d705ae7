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

    /// The outsiders who see a channel that is not discoverable — its banned users and the
    /// admins — are listed, not looked for among every connected user; what each gets is the
    /// same: an admin demoted gets no more, a conversation none, an admin read back from the
    /// storage still gets them.
    @Test func theOutsidersOfAChannelNotDiscoverableAreItsBannedUsersAndTheAdmins() async throws {
        let (server, _) = try await makeServer()
        var alice = try await connected(server, "alice")
        var bob = try await connected(server, "bob")
        var carol = try await connected(server, "carol")
        var boss = try await connected(server, "boss")
        var others: [TestDevice] = []
        for index in 0..<8 { others.append(try await connected(server, "u\(index)")) }
        try await alice.send(.createChannel(ChannelDraft(type: .live, channelId: "secret", userIds: ["bob"])))
        try await alice.send(.banMembers(channelId: "secret", userIds: ["bob"]))
        try await alice.send(.createChannel(ChannelDraft(type: .conversation, channelId: "pair", userIds: ["carol"])))
        for index in others.indices { _ = await others[index].drainEvents() }
        _ = await (alice.drainEvents(), bob.drainEvents(), carol.drainEvents(), boss.drainEvents())

        try await alice.send(.sendMessage(MessageDraft(channelId: "secret", text: "psst")))
        #expect(await bob.drainEvents().map(\.name) == ["channelUpdated"])
        #expect(await boss.drainEvents().map(\.name) == ["channelUpdated"])
        #expect(await carol.drainEvents().isEmpty)
        for index in others.indices { #expect(await others[index].drainEvents().isEmpty) }

        try await server.registerUser(id: "boss", displayName: "Boss", isAdmin: false)
        _ = await (boss.drainEvents(), bob.drainEvents())
        try await alice.send(.sendMessage(MessageDraft(channelId: "secret", text: "again")))
        #expect(await boss.drainEvents().isEmpty, "no longer an admin")
        #expect(await bob.drainEvents().map(\.name) == ["channelUpdated"])

        try await server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
        _ = await (boss.drainEvents(), carol.drainEvents())
        try await alice.send(.sendMessage(MessageDraft(channelId: "pair", text: "just us")))
        #expect(await boss.drainEvents().isEmpty, "a conversation is seen by its members only")
        try await alice.send(.sendMessage(MessageDraft(channelId: "secret", text: "admin again")))
        #expect(await boss.drainEvents().map(\.name) == ["channelUpdated"])
    }

    @Test func anAdminReadBackFromTheStorageStillSeesChannelsNotDiscoverable() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let first = try ChatServer(storage: .sqlite(directory.file))
        try await first.registerUser(id: "root", isAdmin: true)
        try await first.createChannel(type: .live, channelId: "secret", userIds: ["alice"])
        await first.close()
        let server = try ChatServer(storage: .sqlite(directory.file))
        // A restored server numbers events after the stored ones: read by sequence, not drained.
        var root = try await connected(server, "root")
        _ = try await connected(server, "carol")
        let (rootBefore, carolBefore) = (
            server.lastEventSequence(userId: "root"), server.lastEventSequence(userId: "carol")
        )
        _ = try await server.sendMessage(as: "alice", channelId: "secret", text: "hi")
        let rootAfter = server.lastEventSequence(userId: "root")
        #expect(rootAfter == rootBefore + 1, "one event for the admin")
        #expect(server.lastEventSequence(userId: "carol") == carolBefore, "none for a plain user")
        if rootAfter > rootBefore {
            var names: [String] = []
            while let envelope = await root.nextEnvelope() {
                if envelope.sequence > rootBefore { names.append(envelope.event.name) }
                if envelope.sequence >= rootAfter { break }
            }
            #expect(names == ["channelUpdated"])
        }
        await server.close()
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
        #expect(
            bobView.lastSequence == 1 && bobView.readSequence == 0 && bobView.unreadCount == 1 && bobView.hasMention)
        let aliceEvents = await room.alice.drainEvents()
        guard case .messageNew(_, let aliceView) = aliceEvents[1] else {
            Issue.record("alice got no messageNew")
            return
        }
        #expect(aliceView.readSequence == 1 && aliceView.unreadCount == 0 && !aliceView.hasMention)
        #expect(room.server.unreadCount(userId: "bob", channelId: "c") == bobView.unreadCount)
    }

    /// One change is rendered once per distinct view and encoded once per rendering: viewers
    /// with equal views (membership, read marker, mention) share one event and its JSON; each
    /// still gets their own view, sequence and frame.
    @Test func viewersWithTheSameViewShareOneEventAndItsEncoding() async throws {
        let (server, _) = try await makeServer()
        var alice = try await connected(server, "alice")
        var bob = try await connected(server, "bob")
        var bobTablet = try await connected(server, "bob", "tablet")
        var carol = try await connected(server, "carol")
        var boss = try await connected(server, "boss")
        try await alice.send(
            .createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob", "carol", "boss"])))
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "one")))
        try await carol.send(.startReading(channelId: "c"))
        try await carol.send(.stopReading(channelId: "c"))
        _ = await alice.drain(); _ = await bob.drain(); _ = await bobTablet.drain(); _ = await carol.drain();
        _ = await boss.drain()
        try await boss.send(.sendMessage(MessageDraft(channelId: "c", text: "two @bob", mentionedUserIds: ["bob"])))

        struct Unexpected: Error { var text: String }
        func messageNew(_ device: inout TestDevice) async throws -> (EventEnvelope, Channel) {
            let found = await device.drain().first { if case .messageNew = $0.event { true } else { false } }
            guard let envelope = found, case .messageNew(_, let channel) = envelope.event else {
                throw Unexpected(text: "no messageNew for \(device.userId)")
            }
            // Its frame is its own: its sequence, its view, the same JSON object as unshared.
            let text = try WireCodec.encode(.event(envelope))
            guard case .event(let decoded) = try WireCodec.decode(text), case .messageNew(_, let seen) = decoded.event
            else {
                throw Unexpected(text: text)
            }
            #expect(decoded == envelope && decoded.sequence == envelope.sequence)
            #expect(
                seen.readSequence == channel.readSequence && seen.hasMention == channel.hasMention
                    && seen.version == channel.version)
            return (envelope, channel)
        }
        let (toAlice, aliceView) = try await messageNew(&alice)
        let (toBob, bobView) = try await messageNew(&bob)
        let (toTablet, _) = try await messageNew(&bobTablet)
        let (toCarol, carolView) = try await messageNew(&carol)
        let (toBoss, bossView) = try await messageNew(&boss)
        #expect(aliceView.readSequence == 1 && !aliceView.hasMention)
        #expect(carolView.readSequence == 1 && !carolView.hasMention)
        #expect(bobView.readSequence == 0 && bobView.hasMention)
        #expect(bossView.readSequence == 2)
        // Alice and carol see the channel alike: whichever was served first has an envelope of
        // its own, the other shares from then on (a view seen by one device allocates nothing).
        let aliceAndCarol = [toAlice.sharedEncoding, toCarol.sharedEncoding].compactMap { $0 }
        #expect(aliceAndCarol.count == 1, "a view's second recipient shares")
        // Bob's two devices share from the start; boss alone sees his view.
        let bobs = try #require(toBob.sharedEncoding)
        #expect(toTablet.sharedEncoding === bobs)
        #expect(toBoss.sharedEncoding == nil)
        #expect(aliceAndCarol.allSatisfy { $0 !== bobs }, "different views never share")
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
