import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// A single node is a log of one (``LocalChangeLog``): every change it makes is an entry at the
/// next position, applied by the code a cluster's nodes apply entries with; a read is not an
/// entry. What a user sees of it: connects, replacements, ends and timers behave as they do on a
/// cluster's node.
@Suite(.timeLimit(.minutes(1))) struct LocalChangeLogTests {
    private typealias DeviceKey = ServerState.DeviceKey

    private func position(_ server: ChatServer) -> Int { server.engine.core.withLock { $0.applied.position } }

    private func connection(_ server: ChatServer, _ userId: String, _ deviceId: String) -> ConnectionTable.Connection? {
        server.engine.core.withLock { $0.applied.connections[DeviceKey(userId: userId, deviceId: deviceId)] }
    }

    @Test func everyChangeIsAnEntryAtTheNextPositionAndAReadIsNone() async throws {
        var room = try await Room.make(drained: true)
        #expect(room.server.engine.log is LocalChangeLog)
        let phone = try #require(connection(room.server, "alice", ChatServer.defaultDeviceId))
        #expect(phone.node == LocalChangeLog.nodeId)

        let beforeWrite = position(room.server)
        try await room.aliceSays("hello")
        #expect(position(room.server) == beforeWrite + 1, "a message is one entry")
        _ = try await room.alice.send(.getUser(userId: "bob"))
        _ = try await room.alice.send(.queryMessages(MessagePageQuery(channelId: "c")))
        #expect(position(room.server) == beforeWrite + 1, "a read is no entry")

        // A refused request is not applied: nothing moves but the answer.
        await #expect(throws: ChatError.self) { try await room.bob.send(.deleteChannel(channelId: "c")) }
        #expect(position(room.server) == beforeWrite + 2, "a refused request still took its position")
        _ = await room.bob.drain()
    }

    @Test func aConnectionReplacedOnTheSameDeviceKeepsItsUserOnlineWithoutAFlicker() async throws {
        var room = try await Room.make(drained: true)
        let before = try #require(connection(room.server, "bob", ChatServer.defaultDeviceId))
        // Bob's same device connects through a new transport: the old one is told `.replaced`.
        var second = TestDevice(room.server, "bob")
        try await second.connect()
        let after = try #require(connection(room.server, "bob", ChatServer.defaultDeviceId))
        #expect(after.attachedAt > before.attachedAt)
        #expect(room.server.user("bob")?.isOnline == true)
        var sawReplaced = false
        while let event = await room.bob.next() {
            if case .disconnected(.replaced) = event {
                sawReplaced = true
                break
            }
        }
        #expect(sawReplaced)
        // Alice saw no presence change of bob's: he never went offline.
        let presence = await room.alice.drainEvents().filter {
            if case .presenceChanged(let user) = $0 { return user.userId == "bob" }
            return false
        }
        #expect(presence.isEmpty, "bob's presence changed: \(presence)")
    }

    @Test func theEndOfAConnectionIsAnEntryThatTakesItsUserOffline() async throws {
        let room = try await Room.make(drained: true)
        let beforeEnd = position(room.server)
        await room.bob.transport.disconnect()
        #expect(position(room.server) == beforeEnd + 1, "the detach is one entry")
        #expect(connection(room.server, "bob", ChatServer.defaultDeviceId) == nil)
        #expect(room.server.user("bob")?.isOnline == false)
        #expect(room.server.devices(userId: "bob").map(\.isConnected) == [false])
    }

    @Test func aTimerDueIsATickEntryAndOnlyThen() async throws {
        var room = try await Room.make(drained: true)
        try await room.bob.send(.startTyping(channelId: "c"))
        _ = await room.alice.drain()
        let typing = position(room.server)
        room.server.runHousekeeping()
        #expect(position(room.server) == typing, "nothing due: no tick")
        room.clock.advance(by: ServerConfiguration().typingExpiry + 1)
        room.server.runHousekeeping()
        #expect(position(room.server) == typing + 1, "the typing indicator's end is one tick")
        let stopped = await room.alice.drainEvents().contains {
            if case .typingStopped(_, let userId) = $0 { return userId == "bob" }
            return false
        }
        #expect(stopped)
    }
}
