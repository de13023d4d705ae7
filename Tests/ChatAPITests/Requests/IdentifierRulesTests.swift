import ChatAPI
import Foundation
import Testing

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
}
