import ChatAPI
import ChatServer
import Foundation
import Testing

/// Replay logs are bounded by age too (the server's clock, never the wall clock): a device that
/// falls behind the retention must resync.
@Suite struct EventLogRetentionTests {
    static let configuration = ServerConfiguration(eventLogRetention: 100)

    @Test func aDeviceBackWithinTheRetentionResumes() async throws {
        var room = try await Room.make(configuration: Self.configuration, drained: true)
        let seen = room.bob.lastSequence
        await room.bob.transport.disconnect()
        try await room.aliceSays("while away")
        room.clock.advance(by: 99)
        #expect(try await room.bob.connect(resumingAfter: seen).status == .resumed)
    }

    @Test func aDeviceThatFellBehindTheRetentionMustResync() async throws {
        var room = try await Room.make(configuration: Self.configuration, drained: true)
        let seen = room.bob.lastSequence
        await room.bob.transport.disconnect()
        try await room.aliceSays("old")
        room.clock.advance(by: 101)
        try await room.aliceSays("new")
        let result = try await room.bob.connect(resumingAfter: seen)
        #expect(result.status == .resyncRequired)
        #expect(result.lastSequence == seen + 2)
    }

    @Test func oldEventsAreDroppedEvenWhenNothingNewArrives() async throws {
        var room = try await Room.make(configuration: Self.configuration, drained: true)
        let seen = room.bob.lastSequence
        await room.bob.transport.disconnect()
        try await room.aliceSays("old")
        room.clock.advance(by: 150)
        #expect(try await room.bob.connect(resumingAfter: seen).status == .resyncRequired)
    }
}
