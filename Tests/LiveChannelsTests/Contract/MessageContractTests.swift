import ChatServer
import LiveChannels
import Testing

/// The public API contract (`shared/API.md`) for messages and unread counts: sending and listing
/// messages, each channel's unread count and the derived total. Snippet by snippet, written as a
/// user's app would write it: only `import LiveChannels` and `import ChatServer`, no `@testable`.
/// Every name, label and shape pinned there must compile here, and every behaviour stated there is
/// asserted. The helpers the contract suites share are in `ContractTestSupport.swift`.
@Suite(.timeLimit(.minutes(1))) struct MessageContractTests {

    @Test func messagesAndUnreadCounts() async throws {
        let server = ChatServer()
        let alice = try await connectedClient(server, "alice")
        let bob = try await connectedClient(server, "bob")
        let repository = ChannelRepository(client: alice)
        for id in ["c1", "c2"] {
            let builder = CommunityChannelBuilder()
            builder.setId(id)
            builder.setUserIds(["bob"])
            _ = try await repository.createChannel(with: builder)
        }
        let outside = CommunityChannelBuilder()
        outside.setId("outside")
        _ = try await ChannelRepository(client: bob).createChannel(with: outside)

        let messages = MessageRepository(client: alice)
        let message: Message = try await messages.sendMessage(channelId: "c1", text: "hi", mentionedUserIds: [])
        #expect(message.channelId == "c1")
        #expect(message.userId == "alice")
        #expect(message.text == "hi")
        let list: LiveCollection<Message> = messages.getMessages(channelId: "c1")
        for await update in list.updates where update.snapshots.contains(where: { $0.messageId == message.messageId }) {
            break
        }
        #expect(list.snapshots.last == message)

        let channelObject = repository.getChannel("c1")
        let total: LiveObject<Int> = repository.getTotalUnreadCount()  // a derived live value
        let bobMessages = MessageRepository(client: bob)
        _ = try await bobMessages.sendMessage(channelId: "c1", text: "a", mentionedUserIds: ["alice"])
        _ = try await bobMessages.sendMessage(channelId: "c1", text: "b", mentionedUserIds: [])
        for text in ["c", "d", "e"] {
            _ = try await bobMessages.sendMessage(channelId: "c2", text: text, mentionedUserIds: [])
        }
        _ = try await bobMessages.sendMessage(channelId: "outside", text: "not mine", mentionedUserIds: [])
        for await value in total.values where value == 5 { break }
        let sum: Int = repository.totalUnreadCount  // Int
        #expect(sum == 5)  // over c1 (2) and c2 (3); not "outside", which alice is not a member of
        #expect(total.snapshot == sum)
        for await value in channelObject.values where value?.unreadCount == 2 { break }
        #expect(channelObject.snapshot?.unreadCount == 2)
        #expect(channelObject.snapshot?.hasMention == true)
        let c2 = try await loadedValue(of: repository.getChannel("c2"))
        let seen = try await loadedValue(of: repository.getChannel("outside"))
        #expect(c2.unreadCount + (channelObject.snapshot?.unreadCount ?? 0) == repository.totalUnreadCount)
        #expect(seen.currentUserMembership == Membership.none)
        #expect(repository.totalUnreadCount == 5)
        #expect(server.totalUnreadCount(userId: "alice") == 5)

        try await ChannelParticipation(client: alice, channelId: "c2").startReading()
        for await value in total.values where value == 2 { break }
        #expect(repository.totalUnreadCount == 2)

        // A channel this client never fetched counts as soon as alice is a member.
        let added = CommunityChannelBuilder()
        added.setId("c3")
        added.setUserIds(["alice"])
        _ = try await ChannelRepository(client: bob).createChannel(with: added)
        for text in ["f", "g", "h", "i"] {
            _ = try await bobMessages.sendMessage(channelId: "c3", text: text, mentionedUserIds: [])
        }
        for await value in total.values where value == 6 { break }
        #expect(repository.totalUnreadCount == 6)

        // Another device's repository has the total once connected.
        let tablet = try await connectedClient(server, "alice", deviceId: "tablet")
        #expect(ChannelRepository(client: tablet).totalUnreadCount == 6)

        // Leaving a channel takes its unread messages out of the total.
        try await repository.leaveChannel("c1")
        for await value in total.values where value == 4 { break }
        #expect(repository.totalUnreadCount == 4)
        #expect(server.totalUnreadCount(userId: "alice") == 4)
    }
}
