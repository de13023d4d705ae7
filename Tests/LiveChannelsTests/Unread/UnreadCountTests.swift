import ChatAPI
import ChatServer
import Foundation
import LiveChannels
import TestSupport
import Testing

@testable import LiveChannels

@Suite(.timeLimit(.minutes(2))) struct UnreadCountTests {
    let fixture = ChatFixture()

    func makeChannel(_ id: String, by client: ChatClient, members: [String]) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setUserIds(members)
        _ = try await ChannelRepository(client: client).createChannel(with: builder)
    }

    func post(_ client: ChatClient, in channelId: String, mentioning: [String] = []) async throws {
        _ = try await client.transport.send(
            .sendMessage(MessageDraft(channelId: channelId, text: "hello", mentionedUserIds: mentioning)))
    }

    @Test func unreadRisesAsOthersPostAndFallsAsYouRead() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeChannel("general", by: bob, members: ["alice"])
        let repository = ChannelRepository(client: alice)
        let total = await repository.getTotalUnreadCount().loaded()
        let channel = await repository.getChannel("general").loaded()
        #expect(total.snapshot == 0)

        try await post(bob, in: "general")
        try await post(bob, in: "general", mentioning: ["alice"])
        await alice.synchronize()
        #expect(channel.snapshot?.unreadCount == 2)
        #expect(channel.snapshot?.hasMention == true)
        #expect(total.snapshot == 2)
        #expect(repository.totalUnreadCount == 2)

        _ = try await alice.transport.send(.startReading(channelId: "general"))
        await alice.synchronize()
        #expect(total.snapshot == 0)
        try await post(bob, in: "general")
        await alice.synchronize()
        #expect(channel.snapshot?.unreadCount == 0)
        _ = try await alice.transport.send(.stopReading(channelId: "general"))
        try await post(bob, in: "general")
        await alice.synchronize()
        #expect(channel.snapshot?.unreadCount == 1)
        #expect(total.snapshot == 1)
        #expect(fixture.server.totalUnreadCount(userId: "alice") == 1)
    }

    @Test func totalCountsOnlyChannelsYouAreAMemberOf() async throws {
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        try await makeChannel("mine", by: bob, members: ["alice"])
        try await makeChannel("theirs", by: bob, members: [])
        let repository = ChannelRepository(client: alice)
        let total = await repository.getTotalUnreadCount().loaded()
        try await post(bob, in: "mine")
        try await post(bob, in: "theirs")
        await alice.synchronize()
        #expect(total.snapshot == 1)
        try await repository.leaveChannel("mine")
        #expect(total.snapshot == 0)
    }

    @Test func membershipsLoadedAtConnectCountFromTheStart() async throws {
        let bob = try await fixture.client("bob")
        try await fixture.server.registerUser(id: "carol", displayName: "Carol")
        try await makeChannel("a", by: bob, members: ["carol"])
        try await makeChannel("b", by: bob, members: ["carol"])
        try await post(bob, in: "a")
        try await post(bob, in: "b")
        try await post(bob, in: "b")
        let carol = try await fixture.client("carol")
        #expect(ChannelRepository(client: carol).totalUnreadCount == 3)
    }

    /// The seed's multi-device flow: the phone reads, the laptop does not; a message arrives:
    /// unread stays 0 everywhere; the phone disconnects: the next message counts.
    @Test func readingOnOneDeviceCoversTheOthersUntilItDisconnects() async throws {
        let phone = try await fixture.client("alice", deviceId: "phone")
        let laptop = try await fixture.client("alice", deviceId: "laptop")
        let bob = try await fixture.client("bob")
        try await makeChannel("team", by: bob, members: ["alice"])
        _ = try await phone.transport.send(.startReading(channelId: "team"))
        try await post(bob, in: "team")
        await laptop.synchronize()
        await phone.synchronize()
        #expect(ChannelRepository(client: laptop).totalUnreadCount == 0)
        #expect(ChannelRepository(client: phone).totalUnreadCount == 0)
        await phone.disconnect()
        try await post(bob, in: "team")
        await laptop.synchronize()
        #expect(ChannelRepository(client: laptop).totalUnreadCount == 1)
    }

    /// Random sends, reads, joins, leaves, bans and disconnects across three clients (two of
    /// them one user on two devices): every client's per-channel counts and total equal what
    /// the server computes.
    @Test func countsAlwaysMatchTheServer() async throws {
        for seed in UInt64(1)...4 {
            let fixture = ChatFixture()
            let phone = try await fixture.client("alice", deviceId: "phone")
            let laptop = try await fixture.client("alice", deviceId: "laptop")
            let bob = try await fixture.client("bob", deviceId: "phone")
            let clients = [phone, laptop, bob]
            let channels = ["c0", "c1", "c2", "c3"]
            for id in channels {
                let builder = CommunityChannelBuilder()
                builder.setId(id)
                _ = try await ChannelRepository(client: bob).createChannel(with: builder)
            }
            var connected = [true, true, true]
            var generator = SeededGenerator(seed: seed)
            for _ in 0..<120 {
                let index = Int.random(in: 0..<clients.count, using: &generator)
                let client = clients[index]
                let channel = channels.randomElement(using: &generator)!
                if !connected[index] {
                    try await client.connect()
                    connected[index] = true
                    continue
                }
                switch Int.random(in: 0..<10, using: &generator) {
                case 0...3:
                    _ = try? await client.transport.send(
                        .sendMessage(MessageDraft(channelId: channel, text: "m", mentionedUserIds: ["alice"])))
                case 4: _ = try? await client.transport.send(.startReading(channelId: channel))
                case 5: _ = try? await client.transport.send(.stopReading(channelId: channel))
                case 6: _ = try? await ChannelRepository(client: client).joinChannel(channelId: channel)
                case 7: try? await ChannelRepository(client: client).leaveChannel(channel)
                case 8:
                    // Bob moderates his channels: ban or unban alice.
                    let request: ChatRequest =
                        Bool.random(using: &generator)
                        ? .banMembers(channelId: channel, userIds: ["alice"])
                        : .unbanMembers(channelId: channel, userIds: ["alice"])
                    _ = try? await bob.transport.send(request)
                default:
                    await client.disconnect()
                    connected[index] = false
                }
            }
            for (index, client) in clients.enumerated() where !connected[index] { try await client.connect() }
            for client in clients { await client.synchronize() }
            for client in clients {
                let user = client.currentUserId
                let repository = ChannelRepository(client: client)
                #expect(
                    repository.totalUnreadCount == fixture.server.totalUnreadCount(userId: user),
                    "seed \(seed): \(user)/\(client.transport.deviceId) total")
                for id in channels {
                    let cached = client.sync.channels.entity(id)
                    let expected = fixture.server.unreadCount(userId: user, channelId: id)
                    #expect(
                        (cached?.currentUserMembership == .member ? cached?.unreadCount : 0) ?? 0 == expected,
                        "seed \(seed): \(user)/\(client.transport.deviceId) \(id)")
                }
            }
        }
    }
}
