import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct ReadingRulesTests {
    @Test func readingMarkerFollowsNewMessagesWhileAnyDeviceReads() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        _ = try fixture.state.sendMessage("before", to: id, by: "alice", now: fixture.now)
        try fixture.state.startReading(id, userId: "bob", deviceId: "phone", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 0)
        _ = try fixture.state.sendMessage("during", to: id, by: "alice", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 0)
        try fixture.state.startReading(id, userId: "bob", deviceId: "laptop", now: fixture.now)
        try fixture.state.stopReading(id, userId: "bob", deviceId: "phone", now: fixture.now)
        _ = try fixture.state.sendMessage("laptop reads", to: id, by: "alice", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 0)
        try fixture.state.stopReading(id, userId: "bob", deviceId: "laptop", now: fixture.now)
        _ = try fixture.state.sendMessage("after", to: id, by: "alice", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 1)
    }

    @Test func disconnectedDeviceStopsReading() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.startReading(id, userId: "bob", deviceId: "phone", now: fixture.now)
        fixture.state.stopAllReading(device: .init(userId: "bob", deviceId: "phone"))
        _ = try fixture.state.sendMessage("x", to: id, by: "alice", now: fixture.now)
        #expect(fixture.channel(id, for: "bob").unreadCount == 1)
        #expect(fixture.state.readingByDevice.isEmpty)
        #expect(fixture.state.channels[id]!.readers.isEmpty)
    }

    @Test func leavingStopsReading() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.startReading(id, userId: "bob", deviceId: "phone", now: fixture.now)
        try fixture.state.leaveChannel(id, userId: "bob", now: fixture.now)
        #expect(fixture.state.readingByDevice.isEmpty)
        #expect(
            chatError { try fixture.state.startReading(id, userId: "bob", deviceId: "phone", now: fixture.now) }?.kind
                == "forbidden")
    }
}
