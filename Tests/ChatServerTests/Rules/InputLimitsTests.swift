import ChatAPI
import Foundation
import Testing

@testable import ChatServer

@Suite struct InputLimitsTests {
    /// Every malformed input is `invalidArgument` naming the field, and leaves the state as it was.
    @Test func badInputIsRejectedNamingTheFieldAndChangesNothing() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, id: "base", members: ["bob"])
        let now = fixture.now
        let longId = String(repeating: "i", count: InputLimits.maxIdLength + 1)
        let cases: [(field: String, attempt: (inout ServerState) throws -> Void)] = [
            (
                "channelId",
                {
                    _ = try $0.createChannel(
                        ChannelDraft(type: .community, channelId: ""), by: .user("alice"), now: now)
                }
            ),
            (
                "channelId",
                {
                    _ = try $0.createChannel(
                        ChannelDraft(type: .community, channelId: longId), by: .user("alice"), now: now)
                }
            ),
            (
                "channelId",
                {
                    _ = try $0.createChannel(
                        ChannelDraft(type: .community, channelId: "a\u{7}b"), by: .user("alice"), now: now)
                }
            ),
            (
                "displayName",
                {
                    _ = try $0.createChannel(
                        ChannelDraft(type: .community, displayName: String(repeating: "n", count: 257)),
                        by: .user("alice"), now: now)
                }
            ),
            (
                "displayName",
                {
                    try $0.updateChannel(
                        id, ChannelChanges(channelId: "", displayName: "a\nb"), by: .user("alice"), now: now)
                }
            ),
            (
                "tags",
                {
                    _ = try $0.createChannel(
                        ChannelDraft(type: .community, tags: (0...20).map { "t\($0)" }), by: .user("alice"), now: now)
                }
            ),
            (
                "tags",
                { try $0.updateChannel(id, ChannelChanges(channelId: "", tags: [""]), by: .user("alice"), now: now) }
            ),
            (
                "userIds",
                {
                    _ = try $0.createChannel(
                        ChannelDraft(type: .community, userIds: ["ghost"]), by: .user("alice"), now: now)
                }
            ),
            ("userIds", { try $0.addMembers(["bob", "ghost"], to: id, by: .user("alice"), now: now) }),
            ("userIds", { try $0.banMembers([""], in: id, by: .user("alice"), now: now) }),
            ("period", { try $0.muteMembers(["bob"], period: -5, in: id, by: .user("alice"), now: now) }),
            ("period", { try $0.muteChannel(id, period: .nan, by: .user("alice"), now: now) }),
            ("period", { try $0.setRateLimit(id, period: -2, limit: 1, window: 1, by: .user("alice"), now: now) }),
            ("limit", { try $0.setRateLimit(id, period: 10, limit: 0, window: 1, by: .user("alice"), now: now) }),
            ("window", { try $0.setRateLimit(id, period: 10, limit: 1, window: -1, by: .user("alice"), now: now) }),
            ("role", { try $0.setRole("", granted: true, for: ["bob"], in: id, by: .user("alice"), now: now) }),
            ("text", { _ = try $0.sendMessage("a\u{0}b", to: id, by: "bob", now: now) }),
            ("text", { _ = try $0.sendMessage(String(repeating: "x", count: 10_001), to: id, by: "bob", now: now) }),
            ("mentionedUserIds", { _ = try $0.sendMessage("x", mentionedUserIds: [""], to: id, by: "bob", now: now) }),
            ("sequence", { try $0.markRead(id, upTo: -1, userId: "bob", now: now) }),
            ("deviceId", { try $0.startReading(id, userId: "bob", deviceId: "", now: now) }),
            ("userId", { try $0.registerUser(id: "", displayName: nil, isAdmin: false, now: now) }),
        ]
        for (field, attempt) in cases {
            var state = fixture.state
            let error = chatError { try attempt(&state) }
            #expect(error?.kind == "invalidArgument(\(field))")
            #expect(state.channels.count == fixture.state.channels.count)
            #expect(state.channels[id]!.members == fixture.state.channels[id]!.members)
            #expect(state.channels[id]!.info == fixture.state.channels[id]!.info)
            #expect(state.pendingEmissions == fixture.state.pendingEmissions)
        }
    }

    @Test func textAllowsNewlinesAndTabs() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let message = try fixture.state.sendMessage("a\nb\tc", to: id, by: "alice", now: fixture.now)
        #expect(message.text == "a\nb\tc")
    }
}
