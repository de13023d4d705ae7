import ChatAPI
import ChatServer
import Foundation
import TestSupport
import Testing

@testable import LiveChannels

/// The cache holds each live list strongly (no weak reference to load per list per change), so
/// the list must let go of it when nobody holds the collection any more.
@Suite(.timeLimit(.minutes(1))) struct LiveQueryLifetimeTests {
    let fixture = ChatFixture()

    @Test func aListNobodyHoldsIsUnregisteredAndFreed() async throws {
        let alice = try await fixture.client("alice")
        let builder = CommunityChannelBuilder()
        builder.setId("general")
        _ = try await ChannelRepository(client: alice).createChannel(with: builder)
        let before = alice.sync.channels.observers.count

        weak var query: AnyObject?
        do {
            let list = await ChannelRepository(client: alice).getChannels(query: ChannelListQuery()).loaded()
            #expect(list.snapshots.map(\.channelId) == ["general"])
            #expect(alice.sync.channels.observers.count == before + 1)
            query = alice.sync.channels.observers.last
            #expect(query != nil)
        }
        // The collection's source went with the scope, and with it the registration.
        #expect(alice.sync.channels.observers.count == before)
        // The page load's task may still hold the query until it returns; then nothing does.
        // (Yielding, not sleeping: no wall clock, only the other tasks' progress.)
        for _ in 0..<100_000 where query != nil { await Task.yield() }
        #expect(query == nil, "the list's query outlived its collection")

        // The cache goes on for the lists that are still held.
        let held = await ChannelRepository(client: alice).getChannels(query: ChannelListQuery()).loaded()
        let other = CommunityChannelBuilder()
        other.setId("random")
        _ = try await ChannelRepository(client: alice).createChannel(with: other)
        for await update in held.updates where update.snapshots.count == 2 { break }
        #expect(Set(held.snapshots.map(\.channelId)) == ["general", "random"])
    }

    /// `for await update in repository.getMessages(channelId:).updates` holds only the loop's
    /// iterator: the list keeps loading and following its channel all the same (README's outbox
    /// tour relies on it).
    @Test func aListIteratedWithoutBeingHeldKeepsFollowing() async throws {
        try await fixture.server.registerUser(id: "bob")
        try await fixture.server.createChannel(type: .community, channelId: "trip", userIds: ["alice", "bob"])
        let alice = try await fixture.client("alice")
        let bob = try await fixture.client("bob")
        var sent = false
        var seen: [String] = []
        for await update in MessageRepository(client: alice).getMessages(channelId: "trip").updates {
            seen = update.snapshots.map(\.text)
            if seen == ["hello"] { break }
            if update.loadingStatus != .loading, !sent {
                sent = true
                _ = try await MessageRepository(client: bob).sendMessage(
                    channelId: "trip", text: "hello", mentionedUserIds: [])
            }
        }
        #expect(seen == ["hello"])
        await alice.close()
        await bob.close()
    }
}
