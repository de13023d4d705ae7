import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Content filters (seed 004's profanity filters and whitelisted URLs): applied by the server to
/// every message sent or edited in a community or live channel, by anyone.
@Suite struct ContentFilterTests {
    @Test func blockedWordsRefuseOrMaskWholeWordsIgnoringCaseAndDiacritics() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        try fixture.state.setModerationSettings(
            ModerationSettings(blockedWords: [" darn "], blockedWordAction: .refuse), of: id, by: .user("alice"),
            now: fixture.now)
        #expect(
            chatError { _ = try fixture.state.sendMessage("oh DÄRN it", to: id, by: "bob", now: fixture.now) }?.kind
                == "invalidArgument(text)")
        #expect(fixture.state.channels[id]!.messages.count == 0)
        // Not a whole word: allowed.
        _ = try fixture.state.sendMessage("darnedest", to: id, by: "bob", now: fixture.now)
        try fixture.state.setModerationSettings(
            ModerationSettings(blockedWords: ["darn"], blockedWordAction: .mask), of: id, by: .user("alice"),
            now: fixture.now)
        let masked = try fixture.state.sendMessage("Darn, darn!", to: id, by: "alice", now: fixture.now)
        #expect(masked.text == "****, ****!")
        let edited = try fixture.state.editMessage(
            masked.messageId, text: "still darn", by: .user("alice"), now: fixture.now)
        #expect(edited.text == "still ****")
    }

    @Test func linksOnlyToAllowedDomains() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.live, members: ["bob"])
        let stored = try fixture.state.setModerationSettings(
            ModerationSettings(allowedURLDomains: ["Example.com"]), of: id, by: .user("alice"), now: fixture.now)
        #expect(stored.allowedURLDomains == ["example.com"])
        _ = try fixture.state.sendMessage(
            "see https://docs.example.com/a?b, and www.example.com", to: id, by: "bob", now: fixture.now)
        #expect(
            chatError { _ = try fixture.state.sendMessage("(http://evil.io/x)", to: id, by: "bob", now: fixture.now) }?
                .kind == "invalidArgument(text)")
        #expect(
            chatError { _ = try fixture.state.sendMessage("www.notexample.com", to: id, by: "bob", now: fixture.now) }?
                .kind == "invalidArgument(text)")
        #expect(fixture.state.channels[id]!.messages.count == 1)
    }

    @Test func onlyModeratorsOfCommunityAndLiveChannelsManageFilters() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community, members: ["bob"])
        #expect(
            chatError {
                _ = try fixture.state.setModerationSettings(
                    ModerationSettings(blockedWords: ["x"]), of: id, by: .user("bob"), now: fixture.now)
            }?.kind == "forbidden")
        #expect(
            chatError { _ = try fixture.state.moderationSettings(of: id, by: .user("bob"), now: fixture.now) }?.kind
                == "forbidden")
        #expect(
            chatError {
                _ = try fixture.state.setModerationSettings(
                    ModerationSettings(blockedWords: [""]), of: id, by: .user("alice"), now: fixture.now)
            }?.kind == "invalidArgument(blockedWords)")
        #expect(
            chatError {
                _ = try fixture.state.setModerationSettings(
                    ModerationSettings(allowedURLDomains: ["https://x.com"]), of: id, by: .user("alice"),
                    now: fixture.now)
            }?.kind == "invalidArgument(allowedURLDomains)")
        #expect(
            try fixture.state.moderationSettings(of: id, by: .user("alice"), now: fixture.now) == ModerationSettings())
        let conversation = try fixture.create(.conversation, by: "bob", members: ["carol"])
        #expect(
            chatError {
                _ = try fixture.state.moderationSettings(of: conversation, by: .user("bob"), now: fixture.now)
            }?.kind == "notAllowed")
    }
}
