import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct FaultInjectionTests {
    @Test func failNextFailsRequestsWithoutChangingAnything() async throws {
        let room = try await Room.make(drained: true)
        let (server, alice) = (room.server, room.alice)
        server.faults.failNext(2, with: .unavailable("flaky"), userId: "alice")
        for _ in 0..<2 {
            await #expect(throws: ChatError.unavailable("flaky")) {
                try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "lost")))
            }
        }
        #expect(server.messages(channelId: "c").isEmpty)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "ok")))
        #expect(server.messages(channelId: "c").map(\.text) == ["ok"])
    }

    @Test func failNextTargetsOnlyTheNamedUser() async throws {
        let room = try await Room.make(drained: true)
        let (server, alice, bob) = (room.server, room.alice, room.bob)
        server.faults.failNext(1, userId: "bob")
        try await alice.send(.getChannel(channelId: "c"))
        await #expect(throws: ChatError.self) { try await bob.send(.getChannel(channelId: "c")) }
        try await bob.send(.getChannel(channelId: "c"))
    }

    /// Requests skip the fault plan while no request fault is armed; arming, consuming, arming
    /// again and a fault for someone else must all still be seen.
    @Test func requestFaultsArmedAgainAfterBeingUsedUpStillApply() async throws {
        let room = try await Room.make(drained: true)
        let (server, alice, bob) = (room.server, room.alice, room.bob)
        for round in 0..<3 {
            for _ in 0..<5 { try await alice.send(.getChannel(channelId: "c")) }
            server.faults.failNext(1, with: .unavailable("round \(round)"), userId: "bob")
            // Alice's requests pass the armed plan without using bob's fault.
            try await alice.send(.getChannel(channelId: "c"))
            await #expect(throws: ChatError.unavailable("round \(round)")) {
                try await bob.send(.getChannel(channelId: "c"))
            }
            try await bob.send(.getChannel(channelId: "c"))
        }
        let failures = 200
        server.faults.failNext(failures, userId: "alice")
        var failed = 0
        for _ in 0..<(failures + 10) {
            do { try await alice.send(.getChannel(channelId: "c")) } catch { failed += 1 }
        }
        #expect(failed == failures)
    }

    @Test func delayNextHoldsARequestUntilTheClockAdvances() async throws {
        let room = try await Room.make(drained: true)
        let (server, clock, alice) = (room.server, room.clock, room.alice)
        server.faults.delayNext(1, by: 3)
        let pending = Task { try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "late"))) }
        await clock.waitForSleepers(1)
        #expect(server.messages(channelId: "c").isEmpty)
        clock.advance(by: 3)
        let response = try await pending.value
        #expect(response.messageValue?.text == "late")
        #expect(server.messages(channelId: "c").count == 1)
    }

    @Test func failNextConnectsRefusesConnecting() async throws {
        let (server, _) = try await makeServer()
        var carol = TestDevice(server, "carol")
        server.faults.failNextConnects(1, userId: "carol")
        await #expect(throws: ChatError.self) { try await carol.connect() }
        #expect(try await carol.connect().status == .new)
    }

    @Test func dropConnectionEndsTheStreamAndRequestsFailUntilReconnect() async throws {
        let room = try await Room.make(drained: true)
        let (server, alice, bob) = (room.server, room.alice, room.bob)
        var dropped = bob
        #expect(server.faults.dropConnection(userId: "bob"))
        guard case .disconnected(.connectionLost(let error))? = await dropped.next() else {
            Issue.record("bob's stream did not report the drop")
            return
        }
        #expect(error.description.contains("dropped"))
        await #expect(throws: ChatError.self) { try await dropped.send(.getChannel(channelId: "c")) }
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "while away")))
        #expect(try await dropped.connect(resumingAfter: dropped.lastSequence).status == .resumed)
        #expect(await dropped.drainEvents().map(\.name) == ["messageNew"])
        #expect(!server.faults.dropConnection(userId: "nobody"))
    }

    @Test func duplicateNextEventsDeliversTheSameEnvelopeTwice() async throws {
        let room = try await Room.make(drained: true)
        let (server, alice, bob) = (room.server, room.alice, room.bob)
        var receiver = bob
        server.faults.duplicateNextEvents(1, userId: "bob")
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "twice")))
        let first = await receiver.nextEnvelope()
        let second = await receiver.nextEnvelope()
        #expect(first != nil && first == second)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "once")))
        #expect(await receiver.nextEnvelope()?.sequence == first!.sequence + 1)
    }

    @Test func delayEventsDeliversThemLateInOrder() async throws {
        let room = try await Room.make(drained: true)
        let (server, clock, alice, bob) = (room.server, room.clock, room.alice, room.bob)
        var receiver = bob
        server.faults.delayEvents(by: 10, userId: "bob")
        let before = server.lastEventSequence(userId: "bob")
        let response = try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "1")))
        #expect(response.messageValue?.sequence == 1)
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "2")))
        #expect(server.lastEventSequence(userId: "bob") == before + 2)
        clock.advance(by: 10)
        let late = await receiver.drain()
        #expect(late.map(\.sequence) == [before + 1, before + 2])
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: "3")))
        #expect(await receiver.nextEnvelope()?.sequence == before + 3)
    }
}
