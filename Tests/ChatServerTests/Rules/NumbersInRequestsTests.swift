import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Every duration and count a request carries has a documented maximum (``InputLimits``); the
/// largest accepted values work on a server whose clock runs in real time (its wake-up timer is
/// armed for them) and come back after a restart. Values beyond are in `BadInputTableTests`.
@Suite struct NumbersInRequestsTests {
    /// The reproduction of the issue: a moderator mutes their channel, and a member, for
    /// 1e11 s. Before the limits the server answered, then died in its wake-up timer.
    @Test func aHugeMutePeriodIsRefusedAndTheServerGoesOn() async throws {
        let server = ChatServer()  // the system clock: wake-ups are armed
        _ = try await server.registerUser(id: "bob")
        var alice = TestDevice(server, "alice")
        _ = try await alice.connect()
        // Its creator moderates a channel.
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "general", userIds: ["bob"])))
        for request in [
            ChatRequest.muteChannel(channelId: "general", period: 1e11),
            .muteMembers(channelId: "general", userIds: ["bob"], period: 99_999_999_999),
            .setRateLimit(channelId: "general", period: 1e11, limit: 1, window: 1),
        ] {
            let error = await thrownChatError { _ = try await alice.send(request) }
            #expect(error?.kind == "invalidArgument(period)", "\(request)")
        }
        #expect(server.channel("general")?.isMuted == false)
        #expect(server.members(channelId: "general").allSatisfy { $0.mutedUntil == nil })
        _ = try await alice.send(.sendMessage(MessageDraft(channelId: "general", text: "still here")))
        #expect(server.messages(channelId: "general").map(\.text) == ["still here"])
        await server.close()
    }

    @Test func theLargestAcceptedValuesWorkAndComeBackAfterARestart() async throws {
        let directory = StoreDirectory()
        defer { directory.remove() }
        let server = try ChatServer(storage: .sqlite(directory.file))
        for userId in ["bob", "carol"] { _ = try await server.registerUser(id: userId) }
        var alice = TestDevice(server, "alice")
        _ = try await alice.connect()
        _ = try await alice.send(
            .createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob", "carol"])))
        _ = try await alice.send(.createChannel(ChannelDraft(type: .community, channelId: "d")))
        _ = try await alice.send(.muteMembers(channelId: "c", userIds: ["bob"], period: InputLimits.maxPeriod))
        _ = try await alice.send(.muteMembers(channelId: "c", userIds: ["carol"], period: -1))
        _ = try await alice.send(.muteChannel(channelId: "d", period: InputLimits.maxPeriod))
        _ = try await alice.send(
            .setRateLimit(
                channelId: "c", period: InputLimits.maxPeriod, limit: InputLimits.maxRateLimitMessages,
                window: InputLimits.maxRateLimitWindow))
        _ = try await alice.send(
            .queryMessages(
                MessagePageQuery(channelId: "c", position: .after(sequence: InputLimits.maxSequence), limit: 100)))
        _ = try await alice.send(
            .queryMessages(
                MessagePageQuery(channelId: "c", position: .before(sequence: InputLimits.maxSequence), limit: 100)))
        await server.close()

        let reopened = try ChatServer(storage: .sqlite(directory.file))
        let muted = Dictionary(
            uniqueKeysWithValues: reopened.members(channelId: "c").map { ($0.userId, $0.mutedUntil) })
        #expect(muted["bob"]??.timeIntervalSinceNow ?? 0 > InputLimits.maxPeriod - 3_600)
        #expect(muted["carol"]! != nil)
        #expect(reopened.channel("d")?.isMuted == true)
        #expect(reopened.channel("c")?.rateLimit == InputLimits.maxRateLimitMessages)
        var again = TestDevice(reopened, "alice")
        _ = try await again.connect()
        _ = try await again.send(.sendMessage(MessageDraft(channelId: "c", text: "after the restart")))
        await reopened.close()
    }
}
