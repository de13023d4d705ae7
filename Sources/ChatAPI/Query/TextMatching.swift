import Foundation

/// Case- and diacritic-insensitive text matching shared by `autocomplete` filters, user search and
/// display-name sorting, so the server and the client fold text the same way.
enum TextMatching {
    /// `text` without case and diacritics ("Élan" → "elan"), locale-independent.
    ///
    /// - Complexity: O(length); ASCII text takes a fast path that only lowercases.
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Whether `prefix` (already folded, non-empty) starts a word of `folded`: it starts at index
    /// 0 or right after a character that is neither a letter nor a digit. So `"yo"` and
    /// `"new yo"` both match `"new york"`, but `"ork"` does not.
    ///
    /// - Complexity: O(`folded.count` × `prefix.count`) in the worst case.
    static func hasWordPrefix(_ folded: String, _ prefix: String) -> Bool {
        var index = folded.startIndex
        var atWordStart = true
        while index < folded.endIndex {
            if atWordStart, folded[index...].hasPrefix(prefix) { return true }
            atWordStart = !(folded[index].isLetter || folded[index].isNumber)
            index = folded.index(after: index)
        }
        return false
    }
}
