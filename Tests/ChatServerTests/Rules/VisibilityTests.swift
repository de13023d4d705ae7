import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct VisibilityTests {
    @Test func communityAndBroadcastAreVisibleToAll() throws {
        var fixture = StateFixture()
        let community = try fixture.create(.community)
        let broadcast = try fixture.create(.broadcast, by: nil)
        for id in [community, broadcast] {
            #expect(throws: Never.self) { try fixture.state.getChannel(id, by: .user("carol"), now: fixture.now) }
        }
    }

    @Test func liveIsVisibleToMembersAndAdminsOnly() throws {
        var fixture = StateFixture()
        let live = try fixture.create(.live, members: ["bob"])
        #expect(throws: Never.self) { try fixture.state.getChannel(live, by: .user("bob"), now: fixture.now) }
        #expect(throws: Never.self) { try fixture.state.getChannel(live, by: .user("boss"), now: fixture.now) }
        #expect(
            chatError { _ = try fixture.state.getChannel(live, by: .user("carol"), now: fixture.now) }?.kind
                == "notFound")
        #expect(
            chatError { try fixture.state.joinChannel(live, userId: "carol", now: fixture.now) }?.kind == "notFound")
    }

    @Test func conversationIsVisibleToMembersOnly() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.conversation, members: ["bob"])
        #expect(throws: Never.self) { try fixture.state.getChannel(id, by: .user("bob"), now: fixture.now) }
        for outsider in ["carol", "boss"] {
            #expect(
                chatError { _ = try fixture.state.getChannel(id, by: .user(outsider), now: fixture.now) }?.kind
                    == "notFound")
        }
    }

    @Test func invisibleChannelIsNotFoundForEveryOperation() throws {
        var fixture = StateFixture()
        let live = try fixture.create(.live, members: ["bob"])
        let now = fixture.now
        var state = fixture.state
        let attempts: [() throws -> Void] = [
            { _ = try state.sendMessage("hi", to: live, by: "carol", now: now) },
            { try state.addMembers(["dave"], to: live, by: .user("carol"), now: now) },
            {
                try state.updateChannel(
                    live, ChannelChanges(channelId: "", displayName: "x"), by: .user("carol"), now: now)
            },
            { try state.startReading(live, userId: "carol", deviceId: "d", now: now) },
            { try state.startTyping(live, userId: "carol", now: now) },
        ]
        for attempt in attempts { #expect(chatError(attempt)?.kind == "notFound") }
    }

    @Test func bannedUserStillSeesLiveChannelAsBanned() throws {
        var fixture = StateFixture()
        let live = try fixture.create(.live, members: ["bob"])
        try fixture.state.banMembers(["bob"], in: live, by: .user("alice"), now: fixture.now)
        let seen = try fixture.state.getChannel(live, by: .user("bob"), now: fixture.now)
        #expect(seen.currentUserMembership == .banned)
    }
}
