import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct TypingRulesTests {
    @Test func typingStartsStopsAndExpiresWithoutRenewal() throws {
        var fixture = StateFixture(configuration: ServerConfiguration(typingExpiry: 5))
        let id = try fixture.create(.community, members: ["bob"])
        _ = fixture.state.drainEmissions()
        try fixture.state.startTyping(id, userId: "bob", now: fixture.now)
        try fixture.state.startTyping(id, userId: "bob", now: fixture.now)
        #expect(fixture.state.drainEmissions().map(\.change) == [.typingStarted(channelId: id, userId: "bob")])
        fixture.advance(4)
        try fixture.state.startTyping(id, userId: "bob", now: fixture.now)
        fixture.advance(4)
        fixture.state.expireTimers(now: fixture.now)
        #expect(fixture.state.typingUsers(in: id, now: fixture.now) == ["bob"])
        fixture.advance(1)
        fixture.state.expireTimers(now: fixture.now)
        #expect(fixture.state.typingUsers(in: id, now: fixture.now).isEmpty)
        #expect(fixture.state.drainEmissions().map(\.change) == [.typingStopped(channelId: id, userId: "bob")])
        #expect(fixture.state.timedChannels.isEmpty)

        try fixture.state.startTyping(id, userId: "alice", now: fixture.now)
        try fixture.state.stopTyping(id, userId: "alice", now: fixture.now)
        try fixture.state.stopTyping(id, userId: "alice", now: fixture.now)
        #expect(
            fixture.state.drainEmissions().map(\.change) == [
                .typingStarted(channelId: id, userId: "alice"), .typingStopped(channelId: id, userId: "alice"),
            ])
    }

    @Test func sendingAMessageStopsTyping() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.startTyping(id, userId: "bob", now: fixture.now)
        _ = try fixture.state.sendMessage("done", to: id, by: "bob", now: fixture.now)
        #expect(fixture.state.typingUsers(in: id, now: fixture.now).isEmpty)
    }
}
