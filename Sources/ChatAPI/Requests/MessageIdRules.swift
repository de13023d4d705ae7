import Foundation

/// The rule for a message id a client chooses (``MessageDraft/messageId``): 1 to
/// ``maximumLength`` characters of `A–Z a–z 0–9 _ -`. Narrower than ``IdentifierRules``, so a
/// chosen id is safe in a URL, a file name or a push payload as it is. Shared by the server
/// (which enforces it) and the SDK (which makes such ids, ``make()``).
public enum MessageIdRules {
    /// The longest chosen message id, in characters.
    public static let maximumLength = 64

    /// Throws `ChatError.invalidArgument(field: "messageId", …)` unless `id` obeys the rule.
    /// - Complexity: O(``maximumLength``) at most.
    public static func validate(_ id: String) throws(ChatError) {
        let bytes = id.utf8
        if bytes.isEmpty { throw .invalidArgument(field: "messageId", reason: "must not be empty") }
        if bytes.count > maximumLength {
            throw .invalidArgument(field: "messageId", reason: "must be at most \(maximumLength) characters")
        }
        for byte in bytes where !isAllowed(byte) {
            throw .invalidArgument(field: "messageId", reason: "may hold only A-Z, a-z, 0-9, '_' and '-'")
        }
    }

    /// A new id within the rule, unique with overwhelming probability (a random UUID's 122 bits,
    /// lower-case, without its dashes: 32 characters).
    public static func make() -> String {
        UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    @inline(__always)
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
