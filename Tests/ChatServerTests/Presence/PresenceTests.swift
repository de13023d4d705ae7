import ChatAPI
import ChatServer
import Foundation
import Testing

/// Presence: online while any device is connected, `lastActiveAt` at the last disconnect, told
/// on transitions only to co-members and to users who looked the user up — never to the user
/// themselves nor to strangers.
@Suite struct PresenceTests {
    @Test func onlineWhileAnyDeviceIsConnectedAndLastSeenAtTheLastDisconnect() async throws {
        var room = try await Room.make(drained: true)
        #expect(room.server.user("bob")?.isOnline == true)
        var laptop = try await connected(room.server, "bob", "laptop")
        #expect(await room.alice.drainEvents().isEmpty)  // already online: no transition

        await room.bob.transport.disconnect()
        #expect(room.server.user("bob")?.isOnline == true)
        #expect(await room.alice.drainEvents().isEmpty)

        room.clock.advance(by: 60)
        await laptop.transport.disconnect()
        let bob = try #require(room.server.user("bob"))
        #expect(!bob.isOnline)
        #expect(bob.lastActiveAt == room.clock.now)
        let events = await room.alice.drainEvents()
        #expect(events == [.presenceChanged(bob)])
        _ = await laptop.drain()

        try await laptop.connect()
        #expect(room.server.user("bob")?.isOnline == true)
        guard case .presenceChanged(let back)? = await room.alice.drainEvents().first else {
            Issue.record("alice was not told bob is back")
            return
        }
        #expect(back.isOnline && back.lastActiveAt == bob.lastActiveAt)
        #expect(await laptop.drainEvents().isEmpty)  // never told about itself
    }

    @Test func theConnectResultShowsTheUserOnline() async throws {
        let (server, _) = try await makeServer()
        let device = TestDevice(server, "carol")
        let result = try await device.transport.connect(resumingAfter: nil)
        #expect(result.currentUser.isOnline)
    }

    @Test func strangersHearNothingUntilTheyLookTheUserUp() async throws {
        let (server, clock) = try await makeServer()
        var alice = try await connected(server, "alice")
        var carol = try await connected(server, "carol")
        let bob = try await connected(server, "bob")
        #expect(await alice.drainEvents().isEmpty)
        #expect(await carol.drainEvents().isEmpty)

        // Carol searches users and sees bob: from now on she hears of his presence.
        try await carol.send(.searchUsers(UserSearchQuery(term: "bo"), after: nil))
        clock.advance(by: 5)
        await bob.transport.disconnect()
        #expect(await alice.drainEvents().isEmpty)
        #expect(await carol.drainEvents().map(\.name) == ["presenceChanged"])
    }

    @Test func replacingAConnectionIsNoTransition() async throws {
        var room = try await Room.make(drained: true)
        try await room.bob.connect()  // the same transport connects again
        #expect(await room.alice.drainEvents().isEmpty)
        #expect(room.server.user("bob")?.isOnline == true)
    }
}
