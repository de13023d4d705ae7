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

/// With the real clock, typing expires by itself in a quiet chat: no other traffic, no
/// `runHousekeeping()`.
@Suite(.timeLimit(.minutes(1))) struct QuietTypingExpiryTests {
    @Test func typingDisappearsByItselfAfterTheExpiry() async throws {
        var configuration = ServerConfiguration()
        configuration.typingExpiry = 0.3
        let server = ChatServer(configuration: configuration)
        let alice = ChatClient(transport: server.connection(userId: "alice"))
        let bob = ChatClient(transport: server.connection(userId: "bob"))
        try await alice.connect()
        try await bob.connect()
        try await server.createChannel(type: .community, channelId: "quiet", userIds: ["alice", "bob"])
        let aliceSees = MessageRepository(client: alice).getTypingUsers(channelId: "quiet")
        let started = ContinuousClock.now
        try await MessageRepository(client: bob).startTyping(channelId: "quiet")
        await alice.synchronize()
        #expect(aliceSees.snapshot == ["bob"])
        #expect(server.typingUsers(channelId: "quiet") == ["bob"])

        // Nothing else happens: the indicator goes once its time has passed (bounded wait).
        for await users in aliceSees.values where users == [] { break }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(300), "gone after \(elapsed), before its expiry")
        #expect(server.typingUsers(channelId: "quiet") == [])
    }

    @Test func renewalsKeepItAndItStillExpires() async throws {
        var configuration = ServerConfiguration()
        configuration.typingExpiry = 0.4
        let server = ChatServer(configuration: configuration)
        let alice = ChatClient(transport: server.connection(userId: "alice"))
        let bob = ChatClient(transport: server.connection(userId: "bob"))
        try await alice.connect()
        try await bob.connect()
        try await server.createChannel(type: .community, channelId: "quiet", userIds: ["alice", "bob"])
        let aliceSees = MessageRepository(client: alice).getTypingUsers(channelId: "quiet")
        var lastKeystroke = ContinuousClock.now
        for _ in 0..<3 {
            lastKeystroke = ContinuousClock.now  // before the request: the server's deadline is later
            try await MessageRepository(client: bob).startTyping(channelId: "quiet")
            try await Task.sleep(for: .milliseconds(150))
            await alice.synchronize()
            #expect(aliceSees.snapshot == ["bob"], "renewed before its expiry: still typing")
        }
        for await users in aliceSees.values where users == [] { break }
        let elapsed = ContinuousClock.now - lastKeystroke
        #expect(elapsed >= .milliseconds(400), "gone \(elapsed) after the last keystroke")
    }
}
