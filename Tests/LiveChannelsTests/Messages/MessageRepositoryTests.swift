import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct MessageRepositoryTests {
    let fixture = ChatFixture()

    func makeCommunity(_ id: String, by client: ChatClient, members: [String]) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setUserIds(members)
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    @Test func sentMessageWithMentionsIsSeenLiveByBothClients() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await fixture.server.registerUser(id: "carol")
        try await makeCommunity("c1", by: alice, members: ["bob", "carol"])
        let aliceList = await MessageRepository(client: alice).getMessages(channelId: "c1").loaded()
        let bobList = await MessageRepository(client: bob).getMessages(channelId: "c1").loaded()
        #expect(aliceList.snapshots.isEmpty && bobList.snapshots.isEmpty)
        #expect(!aliceList.hasPrevious)

        let sent = try await MessageRepository(client: alice)
            .sendMessage(channelId: "c1", text: "hi @bob", mentionedUserIds: ["carol", "bob", "bob"])
        #expect(sent.mentionedUserIds == ["bob", "carol"])
        #expect(sent.sequence == 1 && sent.userId == "alice")
        // Read-your-writes: the sender's list and channel already show it.
        #expect(aliceList.snapshots == [sent])
        #expect(ChannelRepository(client: alice).getChannel("c1").snapshot?.lastSequence == 1)

        await bob.synchronize()
        #expect(bobList.snapshots == [sent])
        #expect(bobList.dataStatus == .fresh)
    }

    /// A message list opened before its channel exists fails with `notFound`, then loads by
    /// itself once the channel's first message shows it exists (no reconnect, no
    /// `synchronize()`): a history pane kept open across a server's restart.
    @Test func aListOfAChannelThatDoesNotExistYetLoadsOnceItDoes() async throws {
        let alice = try await fixture.client("alice")
        let early = await MessageRepository(client: alice).getMessages(channelId: "later").loaded()
        #expect(early.dataStatus == .error)
        #expect(
            early.error.map { "\($0)" }?.contains("not found") == true
                || (early.error as? ChatError).map { if case .notFound = $0 { true } else { false } } == true)
        try await makeCommunity("later", by: alice, members: [])
        _ = try await MessageRepository(client: alice).sendMessage(
            channelId: "later", text: "first", mentionedUserIds: [])
        _ = try await MessageRepository(client: alice).sendMessage(
            channelId: "later", text: "second", mentionedUserIds: [])
        #expect(await eventually { early.snapshots.map(\.text) == ["first", "second"] && early.dataStatus == .fresh })
    }

    @Test func editsAndDeletionsAreSeenLiveAsModifications() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeCommunity("c1", by: alice, members: ["bob"])
        let repository = MessageRepository(client: alice)
        let first = try await repository.sendMessage(channelId: "c1", text: "one", mentionedUserIds: [])
        let second = try await repository.sendMessage(channelId: "c1", text: "two", mentionedUserIds: [])
        let list = await MessageRepository(client: bob).getMessages(channelId: "c1").loaded()
        let changes = Recorder<CollectionChange>()
        let token = list.observe(on: .synchronous) { _, change, _ in
            if let change { changes.append(change) }
        }
        defer { token.invalidate() }

        let edited = try await repository.editMessage(channelId: "c1", messageId: first.messageId, text: "one!")
        #expect(edited.text == "one!" && edited.editedAt != nil)
        await bob.synchronize()
        #expect(list.snapshots.map(\.text) == ["one!", "two"])

        let deleted = try await repository.deleteMessage(channelId: "c1", messageId: second.messageId)
        #expect(deleted.isDeleted && deleted.text.isEmpty)
        await bob.synchronize()
        #expect(list.snapshots.map(\.isDeleted) == [false, true])
        #expect(list.snapshots[1].text.isEmpty)
        #expect(
            changes.values == [
                CollectionChange(modifications: [0], modificationsInNew: [0]),
                CollectionChange(modifications: [1], modificationsInNew: [1]),
            ])

        // Bob may not edit or delete Alice's message; a deleted message cannot change again.
        await #expect(throws: ChatError.self) {
            try await MessageRepository(client: bob).editMessage(channelId: "c1", messageId: first.messageId, text: "x")
        }
        await #expect(throws: ChatError.self) {
            try await repository.editMessage(channelId: "c1", messageId: second.messageId, text: "x")
        }
        #expect(list.snapshots.map(\.text) == ["one!", ""])
    }

    /// The newest page first, then `previousPage()` back to the first message while Bob keeps
    /// posting: every message exactly once, in order, `hasPrevious` exact at each step.
    @Test func pagingBackwardsWhileMessagesArriveHasNoGapsOrDuplicates() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeCommunity("c1", by: alice, members: ["bob"])
        for index in 1...45 { try await fixture.server.sendMessage(as: "bob", channelId: "c1", text: "m\(index)") }
        let list = await MessageRepository(client: alice).getMessages(channelId: "c1", pageSize: 10).loaded()
        #expect(list.snapshots.map(\.sequence) == Array(36...45))
        #expect(list.hasPrevious)
        #expect(!list.hasNext)

        var posted = 45
        let bobMessages = MessageRepository(client: bob)
        while list.hasPrevious {
            try await bobMessages.sendMessage(channelId: "c1", text: "new \(posted)", mentionedUserIds: [])
            posted += 1
            await alice.synchronize()
            list.previousPage()
            #expect(list.loadingStatus == .loading)
            await list.loaded()
            let sequences = list.snapshots.map(\.sequence)
            #expect(sequences == Array(sequences[0]...posted))
            #expect(list.hasPrevious == (sequences[0] > 1))
        }
        #expect(list.snapshots.map(\.sequence) == Array(1...posted))
        #expect(list.snapshots == fixture.server.messages(channelId: "c1"))
        // Nothing older: previousPage() does nothing.
        list.previousPage()
        #expect(list.loadingStatus == .loaded)
    }

    /// A server that keeps only each channel's newest messages: the list pages back to the
    /// oldest one kept and stops there, while the unread count still counts every message.
    @Test func pagingStopsAtTheOldestMessageTheServerKeeps() async throws {
        let fixture = ChatFixture(server: ChatServer(configuration: ServerConfiguration(messagesPerChannel: 15)))
        let alice = try await fixture.client("alice")
        try await fixture.server.registerUser(id: "bob")
        try await makeCommunity("c1", by: alice, members: ["bob"])
        for index in 1...40 { try await fixture.server.sendMessage(as: "bob", channelId: "c1", text: "m\(index)") }
        let list = await MessageRepository(client: alice).getMessages(channelId: "c1", pageSize: 10).loaded()
        #expect(list.snapshots.map(\.sequence) == Array(31...40) && list.hasPrevious)
        list.previousPage()
        await list.loaded()
        #expect(list.snapshots.map(\.sequence) == Array(26...40))
        #expect(!list.hasPrevious)
        #expect(fixture.server.unreadCount(userId: "alice", channelId: "c1") == 40)
    }

    @Test func broadcastChannelsAcceptMessagesOnlyFromAdmins() async throws {
        try await fixture.server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
        let boss = try await fixture.client("boss")
        let alice = try await fixture.client("alice")
        try await fixture.server.createChannel(type: .broadcast, channelId: "news", userIds: ["alice", "boss"])
        let list = await MessageRepository(client: alice).getMessages(channelId: "news").loaded()
        await #expect {
            try await MessageRepository(client: alice).sendMessage(
                channelId: "news", text: "me too", mentionedUserIds: [])
        } throws: { error in
            if case ChatError.forbidden = error { true } else { false }
        }
        let news = try await MessageRepository(client: boss).sendMessage(
            channelId: "news", text: "news", mentionedUserIds: [])
        await alice.synchronize()
        #expect(list.snapshots == [news])
    }

    @Test func nonMembersCannotReadMessagesAndRetryAfterJoining() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeCommunity("c1", by: alice, members: [])
        try await MessageRepository(client: alice).sendMessage(channelId: "c1", text: "hello", mentionedUserIds: [])
        let list = await MessageRepository(client: bob).getMessages(channelId: "c1").loaded()
        #expect(list.dataStatus == .error)
        #expect(list.error is ChatError)
        _ = try await ChannelRepository(client: bob).joinChannel(channelId: "c1")
        list.previousPage()
        await list.loaded()
        #expect(list.dataStatus == .fresh)
        #expect(list.snapshots.map(\.text) == ["hello"])
    }

    @Test func invalidPageSizeIsReported() async throws {
        let alice = try await fixture.client("alice")
        let list = await MessageRepository(client: alice).getMessages(channelId: "c1", pageSize: 0).loaded()
        #expect(list.error as? ChatError == .invalidArgument(field: "limit", reason: "must be between 1 and 100"))
    }
}
