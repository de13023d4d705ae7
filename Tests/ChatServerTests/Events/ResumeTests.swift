import ChatAPI
import ChatServer
import Foundation
import Testing

@Suite struct ResumeTests {
    @Test func resumeAfterSequenceReplaysEverythingMissed() async throws {
        var room = try await Room.make()
        let seen = await room.bob.drain()
        await room.bob.transport.disconnect()
        #expect(await room.bob.next() == .disconnected(.requested))
        for index in 0..<3 { try await room.aliceSays("\(index)") }

        let result = try await room.bob.connect(resumingAfter: seen.last!.sequence)
        #expect(result.status == .resumed)
        #expect(result.lastSequence == seen.count + 3)
        let replayed = await room.bob.drain()
        #expect(replayed.map(\.sequence) == Array((seen.count + 1)...(seen.count + 3)))
        #expect(replayed.map(\.event.name) == ["messageNew", "messageNew", "messageNew"])
        try await room.aliceSays("live")
        #expect(await room.bob.nextEnvelope()?.sequence == seen.count + 4)
    }

    @Test func resumeBeyondTheReplayLogRequiresResync() async throws {
        var room = try await Room.make(configuration: ServerConfiguration(eventLogCapacity: 4), drained: true)
        await room.bob.transport.disconnect()
        for index in 0..<10 { try await room.aliceSays("\(index)") }
        let result = try await room.bob.connect(resumingAfter: 1)
        #expect(result.status == .resyncRequired)
        #expect(result.lastSequence == 11)
        #expect(await room.bob.next() == .disconnected(.requested))
        try await room.aliceSays("after")
        #expect(await room.bob.nextEnvelope()?.sequence == 12)
    }

    @Test func freshConnectIsNew() async throws {
        let (server, _) = try await makeServer()
        var bob = TestDevice(server, "bob")
        #expect(try await bob.connect().status == .new)
    }

    @Test func resumeWithASequenceTheServerNeverIssuedRequiresResync() async throws {
        let (server, _) = try await makeServer()
        var bob = TestDevice(server, "bob")
        #expect(try await bob.connect(resumingAfter: 5).status == .resyncRequired)
        await bob.transport.disconnect()
        #expect(try await bob.connect(resumingAfter: 0).status == .resumed)
    }

    @Test func aSecondConnectionOfTheSameDeviceReplacesTheFirst() async throws {
        let (server, _) = try await makeServer()
        var first = TestDevice(server, "bob", "phone")
        var second = TestDevice(server, "bob", "phone")
        try await first.connect()
        try await second.connect()
        guard case .disconnected(.replaced)? = await first.next() else {
            Issue.record("the first connection was not ended")
            return
        }
        await #expect(throws: ChatError.self) { try await first.send(.getUser(userId: "bob")) }
        try await second.send(.getUser(userId: "bob"))
    }
}
