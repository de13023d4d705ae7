/// How many columns of a terminal text takes: most characters one, East Asian wide and
/// full-width characters and emoji two, a control character none — so that panes stay aligned
/// with names in 東京 or 👩‍💻, and a cut never splits a character.
public enum TerminalColumns {
    /// The columns `character` takes.
    ///
    /// - Complexity: O(scalars of the character).
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.generalCategory == .control { return 0 }
        // An emoji sequence (a family, a flag, a skin tone) or text asked to show as emoji.
        if scalars.count > 1, scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D }) { return 2 }
        if first.properties.isEmojiPresentation || isWide(first.value) { return 2 }
        return 1
    }

    /// The columns `text` takes.
    ///
    /// - Complexity: O(n).
    public static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest start of `text` that fits in `width` columns, whole characters only.
    ///
    /// - Complexity: O(n).
    public static func prefix(_ text: String, fitting width: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let columns = of(text[index])
            if used + columns > width { break }
            used += columns
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// `text` cut to `width` columns and padded with spaces to exactly `width`.
    public static func fitted(_ text: String, width: Int) -> String {
        let visible = prefix(text, fitting: width)
        return visible + String(repeating: " ", count: max(0, width - of(visible)))
    }

    /// East Asian Wide and Fullwidth code points (Unicode's EastAsianWidth W and F), the ranges a
    /// terminal draws two columns wide.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
            0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default: false
        }
    }
}
