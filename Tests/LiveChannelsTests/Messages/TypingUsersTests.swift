import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
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
        await #expect(throws: ChatError.self) {
            try await MessageRepository(client: alice).startTyping(channelId: "c1")
        }
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
        // Every state alice's handle takes, in order (a synchronous observer misses none).
        let seen = Recorder<Set<String>>()
        let token = aliceSees.observe(on: .synchronous) { typing, _ in seen.append(typing.snapshot ?? []) }
        let started = ContinuousClock.now
        try await MessageRepository(client: bob).startTyping(channelId: "quiet")

        // Nothing else happens: the indicator shows, then goes once its time has passed (bounded
        // wait; however loaded the machine, never before the expiry).
        for await users in aliceSees.values where users == [] && seen.values.contains(["bob"]) { break }
        let elapsed = ContinuousClock.now - started
        #expect(seen.values.contains(["bob"]) && seen.values.last == [])
        #expect(elapsed >= .milliseconds(300), "gone after \(elapsed), before its expiry")
        #expect(server.typingUsers(channelId: "quiet") == [])
        token.invalidate()
    }

    /// A clock moved by the test whose advances the server is not told of (it tells only a
    /// clock's sleepers): the server must wake itself, as with the real clock, but when is
    /// decided by the test, not by the machine's load.
    struct UntoldClock: ServerClock {
        let manual = ManualClock()
        var now: Date { manual.now }
        func sleep(until deadline: Date) async throws { try await manual.sleep(until: deadline) }
    }

    @Test func renewalsKeepItAndItStillExpires() async throws {
        var configuration = ServerConfiguration()
        configuration.typingExpiry = 5
        let clock = UntoldClock()
        let server = ChatServer(clock: clock, configuration: configuration)
        let alice = ChatClient(transport: server.connection(userId: "alice"))
        let bob = ChatClient(transport: server.connection(userId: "bob"))
        try await alice.connect()
        try await bob.connect()
        try await server.createChannel(type: .community, channelId: "quiet", userIds: ["alice", "bob"])
        let aliceSees = MessageRepository(client: alice).getTypingUsers(channelId: "quiet")
        for _ in 0..<3 {
            try await MessageRepository(client: bob).startTyping(channelId: "quiet")
            clock.manual.advance(by: 3)  // within the expiry: renewed before it ends
            await alice.synchronize()
            #expect(aliceSees.snapshot == ["bob"], "renewed before its expiry: still typing")
        }
        // 5 s after the last keystroke it ends, told by the server's own wake-up.
        clock.manual.advance(by: 2)
        for await users in aliceSees.values where users == [] { break }
        #expect(server.typingUsers(channelId: "quiet") == [])
    }
}
