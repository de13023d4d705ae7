import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

@MainActor
@Suite(.timeLimit(.minutes(2))) struct ChannelControllerTests {
    let fixture = ChatFixture()

    /// Alice and bob connected, a community channel "ops" bob created (its moderator) with
    /// alice, bob's messages 1…`count`.
    func scene(messages count: Int = 0) async throws -> (alice: ChatClient, bob: ChatClient) {
        try await fixture.server.registerUser(id: "alice", displayName: "Alice")
        try await fixture.server.registerUser(id: "bob", displayName: "Bob")
        try await fixture.server.registerUser(id: "carol", displayName: "Carol")
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        let builder = CommunityChannelBuilder()
        builder.setId("ops")
        builder.setDisplayName("Ops")
        builder.setUserIds(["alice"])
        _ = try await ChannelRepository(client: bob).createChannel(with: builder)
        for index in 0..<count {
            try await fixture.server.sendMessage(as: "bob", channelId: "ops", text: "m\(index + 1)")
        }
        return (alice, bob)
    }

    @Test func channelAndMessagesNewestFirstWithLiveUpdates() async throws {
        let (alice, bob) = try await scene(messages: 5)
        let controller = alice.channelController(for: "ops")
        let spy = ControllerSpy()
        controller.delegate = spy
        #expect(controller.state == .initialized && controller.channel == nil && controller.messages.isEmpty)
        try await controller.synchronize()
        #expect(controller.state == .remoteDataFetched)
        #expect(spy.states == [.localDataFetched, .remoteDataFetched])
        #expect(controller.channel?.displayName == "Ops")
        guard case .create(let created)? = spy.channelEntityChanges.first else {
            Issue.record("no create: \(spy.channelEntityChanges)")
            return
        }
        #expect(created.channelId == "ops")
        #expect(controller.messages.map(\.text) == ["m5", "m4", "m3", "m2", "m1"])

        // Bob sends: the new message is row 0.
        try await MessageRepository(client: bob).sendMessage(channelId: "ops", text: "m6", mentionedUserIds: [])
        await spy.until { controller.messages.first?.text == "m6" }
        guard case .insert(let message, let index)? = spy.messageChanges.last?.first else {
            Issue.record("no insert: \(spy.messageChanges)")
            return
        }
        #expect(message.text == "m6" && index == IndexPath(indexes: [0, 0]))

        // Bob edits his oldest loaded message: an update at the last row.
        let oldest = try #require(controller.messages.last)
        try await MessageRepository(client: bob).editMessage(channelId: "ops", messageId: oldest.messageId, text: "m1!")
        await spy.until { controller.messages.last?.text == "m1!" }
        #expect(spy.messageChanges.last == [.update(controller.messages[5], index: IndexPath(indexes: [0, 5]))])

        // Bob renames the channel: an update.
        let updater = ChannelUpdateBuilder(channelId: "ops", client: bob)
        updater.setDisplayName("Operations")
        _ = try await ChannelRepository(client: bob).updateChannel(with: updater)
        await spy.until { controller.channel?.displayName == "Operations" }
        guard case .update(let updated)? = spy.channelEntityChanges.last else {
            Issue.record("no update: \(spy.channelEntityChanges)")
            return
        }
        #expect(updated.displayName == "Operations")

        // The channel is deleted: a remove.
        try await fixture.server.deleteChannel("ops")
        await spy.until { if case .remove? = spy.channelEntityChanges.last { true } else { false } }
        guard case .remove(let removed)? = spy.channelEntityChanges.last else {
            Issue.record("no remove: \(spy.channelEntityChanges)")
            return
        }
        #expect(removed.isDeleted)
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func olderMessagesAppendAtTheEnd() async throws {
        let (alice, _) = try await scene(messages: 30)
        let controller = alice.channelController(for: "ops")
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        #expect(controller.messages.count == 25)
        #expect(controller.messages.first?.text == "m30")
        try await controller.loadPreviousMessages(limit: 3)
        #expect(controller.messages.count == 28)
        #expect(controller.messages.last?.text == "m3")
        let done: Bool = await withCheckedContinuation { continuation in
            controller.loadPreviousMessages(limit: 10) { continuation.resume(returning: $0 == nil) }
        }
        #expect(done && controller.messages.count == 30 && controller.hasLoadedAllPreviousMessages)
        #expect(spy.messageChanges.last?.allSatisfy(\.isInsert) == true)
        #expect(spy.inconsistencies.isEmpty)
    }

    @Test func createNewMessageReturnsItsIdAndShowsIt() async throws {
        let (alice, _) = try await scene()
        let controller = alice.channelController(for: "ops")
        try await controller.synchronize()
        let result: Result<String, any Error> = await withCheckedContinuation { continuation in
            controller.createNewMessage(text: "hello") { continuation.resume(returning: $0) }
        }
        let id = try result.get()
        #expect(controller.messages.first?.messageId == id)
        #expect(fixture.server.messages(channelId: "ops").last?.text == "hello")
    }

    @Test func typingUsersAreOtherUsersResolvedToProfiles() async throws {
        let (alice, bob) = try await scene()
        let controller = alice.channelController(for: "ops")
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        let bobs = bob.channelController(for: "ops")
        try await bobs.synchronize()

        bobs.keystroke()
        bobs.keystroke()  // within the renewal interval: not sent again
        await spy.until { controller.typingUsers.map(\.displayName) == ["Bob"] }
        #expect(spy.typingUsers.last?.map(\.userId) == ["bob"])

        // Alice typing herself never shows.
        controller.keystroke()
        await alice.synchronize()
        #expect(controller.typingUsers.map(\.userId) == ["bob"])

        bobs.stopTyping()
        await spy.until { controller.typingUsers.isEmpty }
        #expect(fixture.server.typingUsers(channelId: "ops") == ["alice"])
        controller.stopTyping()
    }

    @Test func memberEventsForOtherUsersActionsAndThisControllersOwn() async throws {
        let (alice, bob) = try await scene()
        let controller = alice.channelController(for: "ops")
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()

        // Another user's action: bob adds carol.
        try await ChannelParticipation(client: bob, channelId: "ops").addMembers(["carol"])
        await spy.until { spy.memberEvents.count == 1 }
        guard case .added(let carol)? = spy.memberEvents.first else {
            Issue.record("not added: \(spy.memberEvents)")
            return
        }
        #expect(carol.userId == "carol" && carol.user?.displayName == "Carol")

        // Bob's role changes: an update.
        try await fixture.server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
        let boss = try await fixture.client("boss")
        try await ChannelModeration(client: boss, channelId: "ops").addRole("vip", userIds: ["bob"])
        await spy.until {
            spy.memberEvents.contains { if case .updated(let m) = $0 { m.userId == "bob" } else { false } }
        }

        // A controller's own removal and addition (bob moderates "ops") reach its delegate too.
        let bobs = bob.channelController(for: "ops")
        let bobSpy = ControllerSpy()
        bobs.delegate = bobSpy
        try await bobs.synchronize()
        let removed: (any Error)? = await withCheckedContinuation { continuation in
            bobs.removeMembers(userIds: ["carol"]) { continuation.resume(returning: $0) }
        }
        #expect(removed == nil)
        await bobSpy.until { bobSpy.memberEvents.contains(.removed(userId: "carol")) }
        let added: (any Error)? = await withCheckedContinuation { continuation in
            bobs.addMembers(userIds: ["carol"]) { continuation.resume(returning: $0) }
        }
        #expect(added == nil)
        await bobSpy.until {
            bobSpy.memberEvents.contains { if case .added(let m) = $0 { m.userId == "carol" } else { false } }
        }
        await spy.until { spy.memberEvents.contains(.removed(userId: "carol")) }
    }

    @Test func markReadClearsTheUnreadCount() async throws {
        let (alice, _) = try await scene(messages: 3)
        let controller = alice.channelController(for: "ops")
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        #expect(controller.channel?.unreadCount == 3)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            controller.markRead { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        await spy.until { controller.channel?.unreadCount == 0 }
        #expect(fixture.server.unreadCount(userId: "alice", channelId: "ops") == 0)
    }

    @Test func leavingALiveChannelRemovesIt() async throws {
        let (alice, _) = try await scene()
        try await fixture.server.createChannel(
            type: .live, channelId: "stage", displayName: "Stage", userIds: ["alice"])
        let controller = alice.channelController(for: "stage")
        let spy = ControllerSpy()
        controller.delegate = spy
        try await controller.synchronize()
        try await ChannelRepository(client: alice).leaveChannel("stage")
        await spy.until { if case .remove? = spy.channelEntityChanges.last { true } else { false } }
        guard case .remove(let channel)? = spy.channelEntityChanges.last else {
            Issue.record("no remove: \(spy.channelEntityChanges)")
            return
        }
        #expect(channel.channelId == "stage")
    }

    @Test func anUnknownChannelFailsSynchronize() async throws {
        let (alice, _) = try await scene()
        let controller = alice.channelController(for: "nope")
        let spy = ControllerSpy()
        controller.delegate = spy
        await #expect(throws: ChatError.self) { try await controller.synchronize() }
        guard case .remoteDataFetchFailed(let error) = controller.state else {
            Issue.record("state \(controller.state)")
            return
        }
        guard case .notFound = error else {
            Issue.record("error \(error)")
            return
        }
        #expect(spy.states.first == .localDataFetched)
    }

    @Test func directMessageIsCreatedOnceThenOpened() async throws {
        let (alice, bob) = try await scene()
        let first = try alice.channelController(
            createDirectMessageChannelWith: ["bob"], name: nil, imageURL: nil, extraData: [:])
        #expect(first.channelId == nil && first.state == .initialized)
        #expect(fixture.server.members(channelId: "ops").count == 2)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            first.synchronize { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        let id = try #require(first.channelId)
        #expect(first.channel?.type == .conversation)
        #expect(Set(fixture.server.members(channelId: id).map(\.userId)) == ["alice", "bob"])

        // The same member set, from either side, opens the same conversation.
        let again = try alice.channelController(
            createDirectMessageChannelWith: ["bob", "alice"], name: "Hi", imageURL: URL(string: "https://x/y.png"),
            extraData: ["k": "v"])
        try await again.synchronize()
        #expect(again.channelId == id)
        let bobs = try bob.channelController(
            createDirectMessageChannelWith: ["alice"], name: nil, imageURL: nil, extraData: [:])
        try await bobs.synchronize()
        #expect(bobs.channelId == id)

        // Messages flow between them.
        let spy = ControllerSpy()
        first.delegate = spy
        bobs.createNewMessage(text: "hey alice")
        await spy.until { first.messages.first?.text == "hey alice" }

        #expect(throws: ChatError.self) {
            try alice.channelController(
                createDirectMessageChannelWith: ["alice"], name: nil, imageURL: nil, extraData: [:])
        }
        let unknown = try alice.channelController(
            createDirectMessageChannelWith: ["ghost"], name: nil, imageURL: nil, extraData: [:])
        await #expect(throws: ChatError.self) { try await unknown.synchronize() }
        guard case .remoteDataFetchFailed = unknown.state else {
            Issue.record("state \(unknown.state)")
            return
        }
    }
}
