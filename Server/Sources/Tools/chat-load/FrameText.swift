/// The load generator's reading of the frames it receives: byte searches over the UTF-8 of a
/// frame, the same for the floor and for chat-server, and cheap enough not to compete with the
/// server for the machine's two cores (Foundation's `contains`/`range(of:)` on a kilobyte-long
/// event frame took 8% of a latency run's samples).
enum FrameText {
    /// Whether `text` holds `needle`. O(length of `text` × length of `needle`) at worst.
    static func contains(_ text: String, _ needle: String) -> Bool {
        end(of: needle, in: text) != nil
    }

    /// The offset just past the first `needle` in `text`'s UTF-8, if any: a scan for the first
    /// byte over contiguous storage, then a comparison (the generic `firstRange(of:)` is several
    /// times slower on kilobyte frames).
    static func end(of needle: String, in text: String) -> Int? {
        var text = text
        var needle = needle
        return text.withUTF8 { haystack in
            needle.withUTF8 { pattern -> Int? in
                guard let first = pattern.first, haystack.count >= pattern.count else { return nil }
                var index = 0
                let last = haystack.count - pattern.count
                while index <= last {
                    if haystack[index] == first {
                        var matched = 1
                        while matched < pattern.count, haystack[index + matched] == pattern[matched] { matched += 1 }
                        if matched == pattern.count { return index + pattern.count }
                    }
                    index += 1
                }
                return nil
            }
        }
    }

    /// Whether `text` is an answer to a request (`response` or `failure` frame).
    static func isAnswer(_ text: String) -> Bool {
        contains(text, "\"type\":\"response\"") || contains(text, "\"type\":\"failure\"")
    }

    /// The send stamp a latency frame carries after its first `t=`: the (possibly negative)
    /// integer there; `nil` without one.
    static func stamp(in text: String) -> Int64? {
        integer(after: "t=", in: text).map(Int64.init)
    }

    /// The (possibly negative) integer right after the first `prefix` in `text`; `nil` without
    /// one.
    static func integer(after prefix: String, in text: String) -> Int? {
        guard let start = end(of: prefix, in: text) else { return nil }
        let bytes = text.utf8
        var index = bytes.index(bytes.startIndex, offsetBy: start)
        var sign = 1
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") {
            sign = -1
            index = bytes.index(after: index)
        }
        var value = 0
        var digits = 0
        while index < bytes.endIndex, case let byte = bytes[index], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9")
        {
            value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
            digits += 1
            index = bytes.index(after: index)
        }
        return digits > 0 ? sign * value : nil
    }
}
