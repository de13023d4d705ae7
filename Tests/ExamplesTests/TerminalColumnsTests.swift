import Testing
import TerminalChat

/// Panes stay aligned whatever the names hold: wide characters and emoji take two columns, a
/// cut never splits a character, and keys that are not text never reach a command.
@Suite struct TerminalColumnsTests {
    @Test(arguments: [
        ("alice", 5), ("東京", 4), ("チャット", 8), ("한국어", 6), ("ＡＢ", 4), ("👩‍💻", 2), ("👨‍👩‍👧‍👦", 2),
        ("🇯🇵", 2), ("❤️", 2), ("👍🏽", 2), ("é", 1), ("e\u{301}", 1), ("a\u{7}b", 2), ("", 0),
    ])
    func columnsAsATerminalDrawsThem(text: String, columns: Int) {
        #expect(TerminalColumns.of(text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func aCutKeepsWholeCharactersAndThePaddingFillsTheWidth() {
        #expect(TerminalColumns.prefix("ab東京", fitting: 3) == "ab")
        #expect(TerminalColumns.prefix("ab東京", fitting: 4) == "ab東")
        #expect(TerminalColumns.prefix("👨‍👩‍👧‍👦 family", fitting: 1) == "")
        for text in ["ab東京", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦", "plain text that is long", "東京チャット 👩‍💻 team"] {
            for width in 1...12 {
                let fitted = TerminalColumns.fitted(text, width: width)
                #expect(TerminalColumns.of(fitted) == width, "'\(text)' in \(width): '\(fitted)'")
                #expect(text.hasPrefix(fitted.trimmingSuffixSpaces()), "'\(fitted)' is a start of '\(text)'")
            }
        }
    }

    @Test func keysThatAreNotTextAreTakenOut() {
        // Left, Right, Up, Home, End, Delete (ESC [ 3 ~), F1 (ESC O P), Alt-b.
        let typed = TypedLine("send general hi\u{1B}[D\u{1B}[C\u{1B}[A\u{1B}[H\u{1B}[F\u{1B}[3~\u{1B}OP\u{1B}b there")
        #expect(typed == TypedLine(text: "send general hi there", asksRedraw: false))
        #expect(TypedLine("\u{0C}") == TypedLine(text: "", asksRedraw: true))
        #expect(TypedLine("send\tgeneral\u{7}\u{7F} ok") == TypedLine(text: "send general ok", asksRedraw: false))
        #expect(TypedLine("send general 東京 👩‍💻").text == "send general 東京 👩‍💻")
        #expect(TypedLine("ends in escape \u{1B}").text == "ends in escape ")
    }
}

extension String {
    fileprivate func trimmingSuffixSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
