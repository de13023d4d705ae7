import ChatAPI
import Foundation
import Testing

@testable import ChatServer

/// Text limits count characters, UTF-8 bytes and scalars per character.
@Suite struct TextLimitTests {
    @Test func oneCharacterWithAHundredThousandCombiningMarksIsRefused() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let zalgo = "e" + String(repeating: "\u{301}", count: 100_000)
        #expect(zalgo.count == 1)
        #expect(chatError { _ = try fixture.state.sendMessage(zalgo, to: id, by: "alice", now: fixture.now) }?.kind == "invalidArgument(text)")
        // Under the byte limit, a character with too many scalars is still refused.
        let stacked = "e" + String(repeating: "\u{301}", count: InputLimits.maxScalarsPerCharacter)
        #expect(chatError { _ = try fixture.state.sendMessage(stacked, to: id, by: "alice", now: fixture.now) }?.kind == "invalidArgument(text)")
        #expect(chatError { try fixture.state.updateChannel(id, ChannelChanges(channelId: "", displayName: stacked), by: .user("alice"), now: fixture.now) }?.kind == "invalidArgument(displayName)")
        #expect(fixture.state.channels[id]!.messages.count == 0)
    }

    @Test func textIsLimitedInBytesAsWellAsCharacters() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let flags = String(repeating: "\u{1F1EB}\u{1F1F7}", count: 5_001)  // 5,001 characters, 40,008 bytes
        #expect(chatError { _ = try fixture.state.sendMessage(flags, to: id, by: "alice", now: fixture.now) }?.kind == "invalidArgument(text)")
        let emoji = String(repeating: "\u{1F600}", count: InputLimits.maxMessageLength)  // 40,000 bytes
        _ = try fixture.state.sendMessage(emoji, to: id, by: "alice", now: fixture.now)
        let family = "\u{1F469}\u{1F3FB}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F468}\u{1F3FC}"
        #expect(family.count == 1)
        _ = try fixture.state.sendMessage("\(family) e\u{301}\u{302}\u{303}", to: id, by: "alice", now: fixture.now)
    }
}
