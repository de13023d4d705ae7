import ChatServer
import Foundation

/// A provider's payload cut to its limit in bytes: APNs takes at most 4,096 bytes of payload,
/// FCM 4,096 bytes of message; a body of 200 characters can be five times that (a family emoji
/// is 25 bytes in UTF-8, a control character 6 once escaped in JSON).
enum PushPayload {
    /// What ends a cut text.
    static let ellipsis = "…"

    /// `encode(notification)`, or when that holds more than `limit` bytes, the encoding of
    /// `notification` with its body cut — on a `Character` boundary, ending in "…" — to the
    /// longest that fits; with the title cut as well when even "…" as the body does not fit.
    /// What is measured is the encoded payload, so JSON's escapes count. When nothing fits (the
    /// other fields alone are over `limit`), the encoding with both cut to "…": the provider
    /// refuses it, saying why.
    ///
    /// - Complexity: O(log(characters)) encodings.
    static func fitting(
        _ notification: PushNotification, limit: Int, encode: (PushNotification) throws -> Data
    ) rethrows -> Data {
        let whole = try encode(notification)
        if whole.count <= limit { return whole }
        var cut = notification
        if let body = try longestFit(
            of: notification.body, limit: limit,
            encode: { text in
                cut.body = text
                return try encode(cut)
            })
        {
            return body
        }
        cut.body = ellipsis
        if let title = try longestFit(
            of: notification.title, limit: limit,
            encode: { text in
                cut.title = text
                return try encode(cut)
            })
        {
            return title
        }
        cut.title = ellipsis
        return try encode(cut)
    }

    /// The encoding of the longest prefix of `text` plus "…" that `encode` makes within `limit`
    /// bytes (`nil`: not even "…" alone fits). The encoding grows with the prefix, so a binary
    /// search over the prefix's length in characters finds it.
    private static func longestFit(
        of text: String, limit: Int, encode: (String) throws -> Data
    ) rethrows -> Data? {
        let characters = Array(text)
        var best: Data?
        // Invariant: a prefix of `low` characters fits (once `best` is set), one of `high + 1` does not.
        var low = 0
        var high = characters.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let data = try encode(String(characters[..<middle]) + ellipsis)
            if data.count <= limit {
                best = data
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }
}
