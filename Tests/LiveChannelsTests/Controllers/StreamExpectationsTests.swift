import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

/// What Stream users expect beyond the completion forms: async forms of the channel
/// controller's calls, Stream's model names, a current-user controller, a name at connect.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct StreamExpectationsTests {
    let fixture = ChatFixture()

    private func scene() async throws -> (alice: ChatClient, bob: ChatClient) {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        // Alice creates it: she moderates it.
        let builder = CommunityChannelBuilder()
        builder.setId("ops")
        builder.setDisplayName("Ops")
        builder.setUserIds(["bob"])
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        await alice.synchronize()
        return (alice, bob)
    }

    @Test func theChannelControllersAsyncForms() async throws {
        let (alice, bob) = try await scene()
        let mine = alice.channelController(for: "ops")
        let bobs = bob.channelController(for: "ops")
        try await mine.synchronize()
        try await bobs.synchronize()

        // Typing: each returns once the server has it.
        try await bobs.sendKeystroke()
        #expect(fixture.server.typingUsers(channelId: "ops") == ["bob"])
        try await bobs.sendStopTyping()
        #expect(fixture.server.typingUsers(channelId: "ops") == [])

        // Sending returns the id once the sender's list shows it.
        let id = try await bobs.sendMessage(text: "hi alice", mentionedUserIds: ["alice"])
        #expect(bobs.messages.first?.messageId == id)
        await alice.synchronize()
        #expect(mine.channel?.unreadCount == 1)

        // Reading returns once the channel shows it read.
        try await mine.markAsRead()
        #expect(mine.channel?.unreadCount == 0)

        // Members.
        try await fixture.server.registerUser(id: "carol")
        try await mine.addMembers(["carol"])
        #expect(fixture.server.members(channelId: "ops").map(\.userId).contains("carol"))
        #expect(mine.channel?.memberCount == 3)
        try await mine.removeMembers(["carol"])
        #expect(mine.channel?.memberCount == 2)

        // Errors come back as throws.
        let outsider = try await fixture.client("dave")
        let theirs = outsider.channelController(for: "ops")
        await #expect(throws: ChatError.self) { try await theirs.sendMessage(text: "let me in") }

        // The fire-and-forget forms still compile in async code, as Stream apps write them.
        bobs.keystroke()
        bobs.stopTyping()
        bobs.markRead()
        bobs.createNewMessage(text: "fire and forget")
        await bob.synchronize()
    }

    @Test func streamsModelNamesAreTheSameTypes() async throws {
        let (alice, _) = try await scene()
        let channel: ChatChannel = try await ChannelRepository(client: alice).getChannel(channelId: "ops")
        let asChannel: Channel = channel
        let user: ChatUser? = alice.currentUser
        let member: ChatChannelMember? = nil
        let message: ChatMessage? = nil
        let id: ChannelId = asChannel.channelId
        let userId: UserId? = user?.userId
        let messageId: MessageId? = message?.messageId
        #expect(id == "ops" && userId == "alice" && member == nil && messageId == nil)
    }

    @Test func theCurrentUserControllerFollowsProfileAndUnread() async throws {
        let (alice, bob) = try await scene()
        final class Spy: CurrentChatUserControllerDelegate {
            var users: [EntityChange<User>] = []
            var unread: [Int] = []
            private var waiters: [CheckedContinuation<Void, Never>] = []
            func nextUnreadChange() async { await withCheckedContinuation { waiters.append($0) } }
            func currentUserController(
                _ controller: CurrentChatUserController, didChangeCurrentUser change: EntityChange<User>
            ) {
                users.append(change)
            }
            func currentUserController(
                _ controller: CurrentChatUserController, didChangeCurrentUserUnreadCount count: Int
            ) {
                unread.append(count)
                let waiting = waiters
                waiters.removeAll()
                for waiter in waiting { waiter.resume() }
            }
        }
        let controller = alice.currentUserController()
        let spy = Spy()
        controller.delegate = spy
        #expect(controller.state == .initialized && controller.currentUser == nil)
        try await controller.synchronize()
        #expect(controller.state == .remoteDataFetched)
        #expect(controller.currentUser?.userId == "alice")
        guard case .create? = spy.users.first else {
            Issue.record("no create: \(spy.users)")
            return
        }

        try await controller.updateCurrentUser(name: "Alice A.")
        #expect(controller.currentUser?.displayName == "Alice A.")
        #expect(alice.currentUser?.displayName == "Alice A.")
        #expect(fixture.server.user("alice")?.displayName == "Alice A.")

        _ = try await MessageRepository(client: bob).sendMessage(channelId: "ops", text: "one", mentionedUserIds: [])
        _ = try await MessageRepository(client: bob).sendMessage(channelId: "ops", text: "two", mentionedUserIds: [])
        await alice.synchronize()
        // The controller shows it once the main actor has delivered what alice applied.
        while controller.unreadCount != 2 { await spy.nextUnreadChange() }
        #expect(controller.unreadCount == 2)
        #expect(spy.unread.last == 2)
    }

    @Test func aDisplayNameGivenAtConnect() async throws {
        let client = ChatClient(transport: fixture.server.connection(userId: "erin"))
        try await client.connect(displayName: "Erin")
        #expect(client.currentUser?.displayName == "Erin")
        #expect(fixture.server.user("erin")?.displayName == "Erin")
        // Again with the same name: nothing to change; with another: renamed.
        try await client.connect(displayName: "Erin")
        await client.disconnect()
        try await client.connect(displayName: "Erin B.")
        #expect(fixture.server.user("erin")?.displayName == "Erin B.")
        #expect(try await UserRepository(client: client).getUser(userId: "erin").displayName == "Erin B.")
    }
}
