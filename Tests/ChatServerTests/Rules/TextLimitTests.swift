import ChatAPI
import Foundation
import Testing
import TestSupport

@testable import ChatServer

/// Text limits count characters, UTF-8 bytes and scalars per character.
@Suite struct TextLimitTests {
    @Test func oneCharacterWithAHundredThousandCombiningMarksIsRefused() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let zalgo = "e" + String(repeating: "\u{301}", count: 100_000)
        #expect(zalgo.count == 1)
        #expect(
            chatError { _ = try fixture.state.sendMessage(zalgo, to: id, by: "alice", now: fixture.now) }?.kind
                == "invalidArgument(text)")
        // Under the byte limit, a character with too many scalars is still refused.
        let stacked = "e" + String(repeating: "\u{301}", count: InputLimits.maxScalarsPerCharacter)
        #expect(
            chatError { _ = try fixture.state.sendMessage(stacked, to: id, by: "alice", now: fixture.now) }?.kind
                == "invalidArgument(text)")
        #expect(
            chatError {
                try fixture.state.updateChannel(
                    id, ChannelChanges(channelId: "", displayName: stacked), by: .user("alice"), now: fixture.now)
            }?.kind == "invalidArgument(displayName)")
        #expect(fixture.state.channels[id]!.messages.count == 0)
    }

    /// The plain-ASCII shortcut of `messageText` answers as the character-by-character rules
    /// do (seeded: lengths around the limit, printable ASCII, tabs, new lines, "\r\n",
    /// control characters, DEL and non-ASCII characters).
    @Test func theAsciiShortcutAgreesWithTheCharacterRules() {
        let seed = SeededGenerator.testSeed(0x7E47)
        var generator = SeededGenerator(seed: seed)
        let pieces: [String] = [
            "a", "Z", " ", "~", "\t", "\n", "\r\n", "\r", "\u{0}", "\u{7F}", "\u{1B}", "é", "\u{301}", "😀", "\u{85}",
        ]
        let limit = InputLimits.maxMessageLength
        var shortcuts = 0
        for round in 0..<3_000 {
            let length =
                round % 10 == 0
                ? Int.random(in: (limit - 3)...(limit + 3), using: &generator)
                : Int.random(in: 0..<40, using: &generator)
            let plain = Bool.random(using: &generator)
            var text = ""
            for _ in 0..<length {
                text +=
                    plain ? pieces[Int.random(in: 0..<6, using: &generator)] : pieces.randomElement(using: &generator)!
            }
            let general = Result { () throws(ChatError) in try InputCheck.messageTextByCharacters(text) }
            let checked = Result { () throws(ChatError) in try InputCheck.messageText(text) }
            if InputCheck.isShortPlainASCII(text, maxLength: limit) {
                shortcuts += 1
                #expect((try? general.get()) != nil, "the shortcut accepts what the rules refuse, seed \(seed)")
            }
            switch (checked, general) {
            case (.success, .success): break
            case (.failure(let error), .failure(let expected)):
                #expect(error == expected, "seed \(seed), round \(round)")
            default: Issue.record("the check answers \(checked), the rules \(general); seed \(seed), round \(round)")
            }
        }
        #expect(shortcuts > 500, "the seeded texts exercise the shortcut")
    }

    @Test func textIsLimitedInBytesAsWellAsCharacters() throws {
        var fixture = StateFixture()
        let id = try fixture.create(.community)
        let flags = String(repeating: "\u{1F1EB}\u{1F1F7}", count: 5_001)  // 5,001 characters, 40,008 bytes
        #expect(
            chatError { _ = try fixture.state.sendMessage(flags, to: id, by: "alice", now: fixture.now) }?.kind
                == "invalidArgument(text)")
        let emoji = String(repeating: "\u{1F600}", count: InputLimits.maxMessageLength)  // 40,000 bytes
        _ = try fixture.state.sendMessage(emoji, to: id, by: "alice", now: fixture.now)
        let family = "\u{1F469}\u{1F3FB}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F468}\u{1F3FC}"
        #expect(family.count == 1)
        _ = try fixture.state.sendMessage("\(family) e\u{301}\u{302}\u{303}", to: id, by: "alice", now: fixture.now)
    }
}
