/// A line as typed at a terminal in its line mode: keys the line mode does not edit with — the
/// cursor keys, Home, End (escape sequences), Ctrl-L and other control characters — arrive in
/// the line as raw bytes. They are taken out before the line is read, so that a command never
/// holds them and an error never echoes them onto the screen; Ctrl-L asks for a redraw.
public struct TypedLine: Equatable, Sendable {
    /// The line without escape sequences and control characters (a tab is a space).
    public var text: String
    /// Ctrl-L was among the keys: draw the screen again.
    public var asksRedraw: Bool

    /// A line already clean.
    public init(text: String, asksRedraw: Bool) {
        self.text = text
        self.asksRedraw = asksRedraw
    }

    /// `raw` cleaned.
    ///
    /// - Complexity: O(n).
    public init(_ raw: String) {
        var text = ""
        var asksRedraw = false
        var scalars = raw.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:
                // ESC [ parameters… final (0x40–0x7E), ESC O final, or ESC and one character.
                guard let next = scalars.next() else { break }
                if next == "[" {
                    while let byte = scalars.next(), !(0x40...0x7E).contains(byte.value) {}
                } else if next == "O" {
                    _ = scalars.next()
                }
            case 0x0C: asksRedraw = true
            case 0x09: text.unicodeScalars.append(" ")
            case 0x00...0x1F, 0x7F, 0x80...0x9F: continue
            default: text.unicodeScalars.append(scalar)
            }
        }
        self.text = text
        self.asksRedraw = asksRedraw
    }
}
