import Foundation

/// The rule every id obeys — user, device, channel, message, avatar file — shared by the server
/// (which enforces it) and the SDK (which checks drafts early), so the two never disagree.
///
/// An id is:
/// - non-empty, at most ``maximumLength`` characters (grapheme clusters) and
///   ``maximumBytes`` UTF-8 bytes;
/// - without white space at either end (so a white-space-only id is refused);
/// - without control characters (Unicode category Cc), format characters (Cf: the bidi
///   embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E,
///   U+200F and U+061C, the zero-width characters U+200B–U+200D and U+2060, the byte-order mark
///   U+FEFF, the soft hyphen…) or line and paragraph separators (U+2028, U+2029);
/// - in Unicode Normalization Form C.
///
/// Ids are checked, never rewritten: an id that breaks the rule is refused with
/// `ChatError.invalidArgument` naming the field, rather than trimmed or normalized. A server
/// that silently rewrote ids would answer under another id than the one asked for, and two
/// spellings would name one thing; an app that takes ids from user input trims and normalizes
/// them itself (`precomposedStringWithCanonicalMapping`) before sending.
public enum IdentifierRules {
    /// The longest id, in characters (grapheme clusters).
    public static let maximumLength = 128
    /// The longest id, in UTF-8 bytes.
    public static let maximumBytes = 512

    /// Throws `ChatError.invalidArgument(field:reason:)` naming `field` unless `id` obeys the rule.
    ///
    /// - Complexity: O(`maximumBytes`) at most: longer input is refused before it is scanned.
    public static func validate(_ id: String, field: String) throws(ChatError) {
        if !id.isEmpty, id.utf8.count <= maximumLength, id.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            // Printable ASCII (most ids): one character per byte, no control or format
            // characters, already in NFC; only white space at the ends is left to check.
            if id.utf8.first == 0x20 || id.utf8.last == 0x20 {
                throw .invalidArgument(field: field, reason: whiteSpaceAtTheEnds)
            }
            return
        }
        try validateInGeneral(id, field: field)
    }

    private static let whiteSpaceAtTheEnds = "must not start or end with white space (nor be only white space); trim it"

    /// ``validate(_:field:)`` for any string, scalar by scalar (the printable-ASCII shortcut's
    /// reference).
    static func validateInGeneral(_ id: String, field: String) throws(ChatError) {
        func refuse(_ reason: String) -> ChatError { .invalidArgument(field: field, reason: reason) }
        if id.isEmpty { throw refuse("must not be empty") }
        if id.utf8.count > maximumBytes { throw refuse("must be at most \(maximumBytes) bytes in UTF-8") }
        if id.count > maximumLength { throw refuse("must be at most \(maximumLength) characters") }
        let scalars = id.unicodeScalars
        if scalars.first!.properties.isWhitespace || scalars.last!.properties.isWhitespace {
            throw refuse(whiteSpaceAtTheEnds)
        }
        if scalars.contains(where: isInvisibleOrControl) {
            throw refuse("must not contain control, format (bidi, zero-width) or separator characters")
        }
        if !scalars.elementsEqual(id.precomposedStringWithCanonicalMapping.unicodeScalars) {
            throw refuse("must be in Unicode Normalization Form C; normalize it first")
        }
    }

    /// Whether `scalar` is a control, format, line-separator or paragraph-separator character.
    static func isInvisibleOrControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
