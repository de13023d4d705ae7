import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// The limits of ``ServerConfiguration``, through the embedded transport (the wire maps the
/// same outcomes to close codes and HTTP statuses: `ChatGatewayTests`).
@Suite struct ServerLimitsTests {
    private func server(_ configure: (inout ServerConfiguration) -> Void) async throws -> (ChatServer, ManualClock) {
        var configuration = ServerConfiguration()
        configure(&configuration)
        let clock = ManualClock()
        let server = ChatServer(clock: clock, configuration: configuration)
        try await server.createChannel(type: .community, channelId: "room", userIds: ["ann", "ben"])
        return (server, clock)
    }

    @Test func requestsPerDeviceAreATokenBucketWithARealRetryAfter() async throws {
        let (server, clock) = try await server { $0.requestsPerSecond = 5 }
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        for _ in 0..<10 { try await ann.send(.getChannel(channelId: "room")) }
        let before = ServerSnapshot(server)
        await #expect(throws: ChatError.rateLimited(retryAfter: 0.2)) {
            try await ann.send(.sendMessage(MessageDraft(channelId: "room", text: "refused")))
        }
        #expect(ServerSnapshot(server) == before, "a refused request changes nothing")
        clock.advance(by: 0.2)
        try await ann.send(.sendMessage(MessageDraft(channelId: "room", text: "accepted")))
        #expect(server.messages(channelId: "room").map(\.text) == ["accepted"])
        // Another device of the same user has its own bucket.
        var tablet = TestDevice(server, "ann", "tablet")
        try await tablet.connect()
        for _ in 0..<10 { try await tablet.send(.getChannel(channelId: "room")) }
    }

    @Test func aDeviceThatKeepsGoingIsDisconnectedAtTheHundredthRefusalInARow() async throws {
        let (server, clock) = try await server { $0.requestsPerSecond = 1 }
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        try await ann.send(.getChannel(channelId: "room"))
        try await ann.send(.getChannel(channelId: "room"))
        for _ in 0..<99 { _ = try? await ann.send(.getChannel(channelId: "room")) }
        clock.advance(by: 1)
        try await ann.send(.getChannel(channelId: "room"))  // accepted: the run starts again
        for _ in 0..<99 { _ = try? await ann.send(.getChannel(channelId: "room")) }
        #expect(server.engine.core.withLock { $0.hub.linkId(of: .init(userId: "ann", deviceId: "default")) } != nil)
        await #expect(throws: ChatError.self) { try await ann.send(.getChannel(channelId: "room")) }
        var reason: DisconnectReason?
        while let item = await ann.next() {
            if case .disconnected(let why) = item { reason = why; break }
        }
        guard case .connectionLost(.rateLimited)? = reason else {
            Issue.record("not disconnected for its rate: \(String(describing: reason))")
            return
        }
    }

    @Test func messagesPerUserCountOverAllTheirDevicesAndConsoleCallsAreNeverLimited() async throws {
        let (server, _) = try await server { $0.messagesPerSecond = 1 }
        var phone = TestDevice(server, "ann", "phone")
        var tablet = TestDevice(server, "ann", "tablet")
        try await phone.connect()
        try await tablet.connect()
        try await phone.send(.sendMessage(MessageDraft(channelId: "room", text: "one")))
        try await tablet.send(.sendMessage(MessageDraft(channelId: "room", text: "two")))
        await #expect(throws: ChatError.rateLimited(retryAfter: 1)) {
            try await phone.send(.sendMessage(MessageDraft(channelId: "room", text: "three")))
        }
        let edit = server.messages(channelId: "room")[0]
        await #expect(throws: ChatError.rateLimited(retryAfter: 1)) {
            try await tablet.send(
                .editMessage(messageId: edit.messageId, draft: MessageDraft(channelId: "room", text: "edited")))
        }
        try await tablet.send(.getChannel(channelId: "room"))  // other requests pass
        var ben = TestDevice(server, "ben")
        try await ben.connect()
        try await ben.send(.sendMessage(MessageDraft(channelId: "room", text: "ben's own")))
        for number in 0..<50 { try await server.sendMessage(as: "ann", channelId: "room", text: "console \(number)") }
        #expect(server.messages(channelId: "room").count == 53)
    }

    @Test func channelCreationsPerHourCountOnlyWhatIsCreated() async throws {
        let (server, clock) = try await server { $0.channelsPerUserPerHour = 2 }
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        try await ann.send(.createChannel(ChannelDraft(type: .conversation, userIds: ["ben"])))
        try await ann.send(.createChannel(ChannelDraft(type: .conversation, userIds: ["ben"])))  // the same one
        try await ann.send(.createChannel(ChannelDraft(type: .community, channelId: "a")))
        await #expect(throws: ChatError.rateLimited(retryAfter: 1_800)) {
            try await ann.send(.createChannel(ChannelDraft(type: .community, channelId: "b")))
        }
        #expect(server.channel("b") == nil)
        clock.advance(by: 1_800)
        try await ann.send(.createChannel(ChannelDraft(type: .community, channelId: "b")))
    }

    @Test func theDeviceCapRefusesOneDeviceTooManyNotAReconnect() async throws {
        let (server, _) = try await server { $0.maxDevicesPerUser = 2 }
        var phone = TestDevice(server, "ann", "phone")
        var tablet = TestDevice(server, "ann", "tablet")
        var laptop = TestDevice(server, "ann", "laptop")
        try await phone.connect()
        try await tablet.connect()
        await #expect(throws: ChatError.self) { try await server.checkCanConnect(userId: "ann", deviceId: "laptop") }
        try await server.checkCanConnect(userId: "ann", deviceId: "phone")
        await #expect {
            try await laptop.connect()
        } throws: { error in
            guard case ChatError.limitExceeded(let reason) = error else { return false }
            return reason.contains("2")
        }
        try await phone.connect()  // the same device again replaces its connection
        var otherPhone = TestDevice(server, "ann", "phone")
        try await otherPhone.connect()  // so does another transport of the same device
        var ben = TestDevice(server, "ben")
        try await ben.connect()  // other users are not affected
        await tablet.transport.disconnect()
        try await laptop.connect()
    }

    @Test func aMessageOverTheSizeLimitIsRefusedWholeTextAndMetadataTogether() async throws {
        let (server, _) = try await server { $0.maxMessageBytes = 100 }
        var ann = TestDevice(server, "ann")
        try await ann.connect()
        let metadata: [String: JSON] = ["note": .string(String(repeating: "m", count: 40))]
        try await ann.send(.sendMessage(MessageDraft(channelId: "room", text: String(repeating: "t", count: 50))))
        await #expect {
            try await ann.send(
                .sendMessage(
                    MessageDraft(channelId: "room", text: String(repeating: "t", count: 50), metadata: metadata)))
        } throws: { error in
            guard case ChatError.limitExceeded(let reason) = error else { return false }
            return reason.contains("limit is 100")
        }
        #expect(server.messages(channelId: "room").count == 1)
    }

    /// A device that stops reading: its stream never holds more than the limit (plus the room
    /// for the `.disconnected`), it is disconnected as too slow, other devices are not
    /// affected, and it comes back through catch-up with every event.
    @Test func aStalledReaderIsDisconnectedAndCatchesUpLater() async throws {
        let (server, _) = try await server {
            $0.maxPendingEvents = 50
            $0.eventLogCapacity = 1_000
        }
        var stalled = TestDevice(server, "ann")
        var reader = TestDevice(server, "ben")
        try await stalled.connect()
        try await reader.connect()
        var seenByReader: [Int] = []
        for number in 0..<300 {
            try await server.sendMessage(as: "ben", channelId: "room", text: "m\(number)")
            seenByReader += await reader.drain().map(\.sequence)
        }
        #expect(seenByReader.count >= 300, "the reading device got every event")
        #expect(server.engine.core.withLock { $0.hub.linkId(of: .init(userId: "ann", deviceId: "default")) } == nil)
        var received: [Int] = []
        var reason: DisconnectReason?
        while let item = await stalled.next() {
            switch item {
            case .event(let envelope): received.append(envelope.sequence)
            case .disconnected(let why): reason = why
            }
            if reason != nil { break }
        }
        #expect(received.count <= 50 + EventHub.pendingReserve, "\(received.count) events were buffered")
        #expect(received == Array(received.indices.map { received[0] + $0 }), "a prefix without gaps")
        guard case .connectionLost(.limitExceeded)? = reason else {
            Issue.record("not disconnected as too slow: \(String(describing: reason))")
            return
        }
        // It comes back through catch-up: a replay longer than the limit ends the same way,
        // so it resumes again after what it got, until it has every event.
        let target = server.lastEventSequence(userId: "ann")
        var reconnects = 0
        while received.last! < target {
            let result = try await stalled.connect(resumingAfter: received.last)
            #expect(result.status == .resumed)
            reconnects += 1
            reading: while let item = await stalled.next() {
                switch item {
                case .event(let envelope):
                    #expect(envelope.sequence == received.last! + 1)
                    received.append(envelope.sequence)
                    if envelope.sequence == target { break reading }
                case .disconnected:
                    break reading
                }
            }
            #expect(reconnects < 20)
            if reconnects >= 20 { break }
        }
        #expect(received.last == target && reconnects > 1)
    }

    @Test func standardTurnsEveryLimitOnAndTheDefaultNone() {
        let standard = ServerConfiguration.standard
        #expect(standard.maxPendingEvents == 10_000)
        #expect(standard.requestsPerSecond == 100)
        #expect(standard.messagesPerSecond == 20)
        #expect(standard.maxDevicesPerUser == 20)
        #expect(standard.eventLogCapacity == 10_000)
        #expect(standard.maxMessageBytes == 65_536)
        #expect(standard.channelsPerUserPerHour == 100)
        let none = ServerConfiguration()
        #expect(none.maxPendingEvents == nil && none.requestsPerSecond == nil && none.messagesPerSecond == nil)
        #expect(none.maxDevicesPerUser == nil && none.maxMessageBytes == nil && none.channelsPerUserPerHour == nil)
    }
}
