import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct PermissionTests {
    @Test func broadcastSendIsAdminOnly() throws {
        var fixture = StateFixture()
        let news = try fixture.create(.broadcast, by: nil, members: ["alice", "boss"])
        #expect(
            chatError { _ = try fixture.state.sendMessage("hi", to: news, by: "alice", now: fixture.now) }?.kind
                == "forbidden")
        let message = try fixture.state.sendMessage("news", to: news, by: "boss", now: fixture.now)
        #expect(message.sequence == 1)
    }

    @Test func adminsMayDoEverything() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.live, members: ["bob"])
        let channel = fixture.state.channels[id]!
        for action in ServerAction.allCases {
            #expect(fixture.state.isAllowed(action, by: .user("boss"), in: channel, now: fixture.now), "\(action)")
        }
    }

    @Test func moderatorsModerateAndEdit() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        let channel = fixture.state.channels[id]!
        for action in ServerAction.allCases where action != .deleteChannel {
            #expect(fixture.state.isAllowed(action, by: .user("alice"), in: channel, now: fixture.now), "\(action)")
        }
        #expect(!fixture.state.isAllowed(.deleteChannel, by: .user("alice"), in: channel, now: fixture.now))
    }

    @Test func membersSendReadAndInviteOnly() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        let channel = fixture.state.channels[id]!
        let allowed: Set<ServerAction> = [.view, .join, .leave, .read, .sendMessage, .addMember, .flag]
        for action in ServerAction.allCases {
            #expect(
                fixture.state.isAllowed(action, by: .user("bob"), in: channel, now: fixture.now)
                    == allowed.contains(action), "\(action)")
        }
        #expect(
            chatError {
                try fixture.state.updateChannel(
                    id, ChannelChanges(channelId: "", displayName: "x"), by: .user("bob"), now: fixture.now)
            }?.kind == "forbidden")
    }

    @Test func nonMembersOnlyViewAndJoin() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let channel = fixture.state.channels[id]!
        let allowed: Set<ServerAction> = [.view, .join, .leave]
        for action in ServerAction.allCases {
            #expect(
                fixture.state.isAllowed(action, by: .user("carol"), in: channel, now: fixture.now)
                    == allowed.contains(action), "\(action)")
        }
        #expect(
            chatError { _ = try fixture.state.sendMessage("x", to: id, by: "carol", now: fixture.now) }?.kind
                == "forbidden")
    }

    @Test func conversationMembersEditButNeverModerate() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.conversation, members: ["bob"])
        let channel = fixture.state.channels[id]!
        #expect(fixture.state.isAllowed(.editChannel, by: .user("bob"), in: channel, now: fixture.now))
        #expect(!fixture.state.isAllowed(.banMember, by: .user("bob"), in: channel, now: fixture.now))
        #expect(!fixture.state.isAllowed(.muteMember, by: .console, in: channel, now: fixture.now))
    }

    /// `isAllowed` is derived from `authorize`, so the answer always matches the request path:
    /// check it against real operations for every role.
    @Test func hasPermissionMatchesEnforcement() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob", "carol"])
        try fixture.state.muteMembers(["carol"], period: 60, in: id, by: .user("alice"), now: fixture.now)
        for user in ["alice", "bob", "carol", "dave", "boss"] {
            let allowed = fixture.state.isAllowed(
                .sendMessage, by: .user(user), in: fixture.state.channels[id]!, now: fixture.now)
            var copy = fixture.state
            let succeeded = (try? copy.sendMessage("x", to: id, by: user, now: fixture.now)) != nil
            #expect(allowed == succeeded, "\(user)")
            var editCopy = fixture.state
            let edited =
                (try? editCopy.updateChannel(
                    id, ChannelChanges(channelId: "", tags: ["t"]), by: .user(user), now: fixture.now)) != nil
            #expect(
                fixture.state.isAllowed(
                    .editChannel, by: .user(user), in: fixture.state.channels[id]!, now: fixture.now) == edited,
                "\(user)")
        }
    }
}
