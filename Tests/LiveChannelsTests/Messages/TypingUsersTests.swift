import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import Testing

@Suite(.timeLimit(.minutes(2))) struct TypingUsersTests {
    let clock = ManualClock()
    let server: ChatServer

    init() {
        server = ChatServer(clock: clock)
    }

    func client(_ userId: String) async throws -> ChatClient {
        let client = ChatClient(transport: server.connection(userId: userId), reconnectPolicy: .immediate)
        try await client.connect()
        return client
    }

    @Test func startStopSendAndExpiryAreSeenByOtherMembers() async throws {
        let alice = try await client("alice")
        let bob = try await client("bob")
        try await server.createChannel(type: .community, channelId: "c1", userIds: ["alice", "bob"])
        let aliceMessages = MessageRepository(client: alice)
        let bobSees = MessageRepository(client: bob).getTypingUsers(channelId: "c1")
        let aliceSees = aliceMessages.getTypingUsers(channelId: "c1")
        #expect(bobSees.snapshot == [])

        try await aliceMessages.startTyping(channelId: "c1")
        await bob.synchronize()
        #expect(bobSees.snapshot == ["alice"])
        #expect(aliceSees.snapshot == [], "the current user is not listed")

        try await aliceMessages.stopTyping(channelId: "c1")
        await bob.synchronize()
        #expect(bobSees.snapshot == [])

        // Sending ends typing.
        try await aliceMessages.startTyping(channelId: "c1")
        try await MessageRepository(client: bob).startTyping(channelId: "c1")
        await bob.synchronize()
        await alice.synchronize()
        #expect(bobSees.snapshot == ["alice"])
        #expect(aliceSees.snapshot == ["bob"])
        try await aliceMessages.sendMessage(channelId: "c1", text: "done", mentionedUserIds: [])
        await bob.synchronize()
        #expect(bobSees.snapshot == [])

        // Expiry: the server stops Bob's indicator once its time has passed.
        clock.advance(by: 2)
        #expect(aliceSees.snapshot == ["bob"])
        clock.advance(by: 10)
        await alice.synchronize()
        #expect(aliceSees.snapshot == [])
    }

    @Test func nonMembersCannotType() async throws {
        let alice = try await client("alice")
        try await server.createChannel(type: .community, channelId: "c1", userIds: ["bob"])
        await #expect(throws: ChatError.self) { try await MessageRepository(client: alice).startTyping(channelId: "c1") }
    }
}
