import Foundation
import TestSupport
import Testing

@testable import ChatAPI

@Suite struct IdentifierRulesTests {
    @Test(arguments: [
        "", " ", "\t\n", " alice", "alice ", "al\u{7}ice", "a\u{202E}b", "a\u{2066}b", "a\u{200B}b",
        "a\u{200D}b", "a\u{2060}b", "\u{FEFF}a", "a\u{2028}b", "e\u{301}",
        String(repeating: "i", count: IdentifierRules.maximumLength + 1),
        String(repeating: "\u{1F600}", count: IdentifierRules.maximumLength),  // 512 bytes: fits
    ])
    func badIdsAreRefusedNamingTheField(id: String) {
        let error = chatErrorOf { try IdentifierRules.validate(id, field: "userId") }
        if id.utf8.count == IdentifierRules.maximumBytes {
            #expect(error == nil)
        } else {
            #expect(error?.field == "userId", "\(id.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func goodIdsPass() throws {
        for id in ["alice", "channel-1", "a b", "\u{E9}t\u{E9}", "\u{1F468}\u{200D}\u{1F469}", "日本"] {
            // A ZWJ emoji sequence is refused: U+200D is a format character.
            if id.unicodeScalars.contains("\u{200D}") {
                #expect(chatErrorOf { try IdentifierRules.validate(id, field: "id") } != nil)
            } else {
                try IdentifierRules.validate(id, field: "id")
            }
        }
    }

    /// The printable-ASCII shortcut answers as the scalar-by-scalar rules do, error for error
    /// (seeded: ids from ASCII, white space, control, combining and other non-ASCII characters,
    /// around the length limit).
    @Test func theAsciiShortcutAgreesWithTheGeneralRules() {
        let seed = SeededGenerator.testSeed(2026)
        var generator = SeededGenerator(seed: seed)
        let pieces: [String] = [
            "a", "Z", "0", "-", "_", ".", "~", " ", "\t", "\u{7F}", "\u{1}", "é", "e\u{301}", "\u{200B}", "😀", "ß",
        ]
        for _ in 0..<20_000 {
            let length = [0, 1, 2, 5, 127, 128, 129].randomElement(using: &generator)!
            let asciiOnly = Bool.random(using: &generator)
            let id = String(
                (0..<length).map { _ in
                    asciiOnly
                        ? Character(UnicodeScalar(UInt8.random(in: 0x20..<0x7F, using: &generator)))
                        : Character(pieces.randomElement(using: &generator)!)
                }.map(String.init).joined())
            let shortcut = chatErrorOf { try IdentifierRules.validate(id, field: "id") }
            let general = chatErrorOf { try IdentifierRules.validateInGeneral(id, field: "id") }
            #expect(shortcut == general, "seed \(seed): \(id.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
