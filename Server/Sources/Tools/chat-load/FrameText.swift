#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The load generator's reading of the frames it receives: byte searches over the UTF-8 of a
/// frame, the same for the floor and for chat-server, and cheap enough not to compete with the
/// server for the machine's two cores (Foundation's `contains`/`range(of:)` on a kilobyte-long
/// event frame took 8% of a latency run's samples).
enum FrameText {
    /// Whether `text` holds `needle`. O(length of `text` × length of `needle`) at worst.
    static func contains(_ text: String, _ needle: String) -> Bool {
        end(of: needle, in: text) != nil
    }

    /// The offset just past the first `needle` in `text`'s UTF-8, if any (`nil` for an empty
    /// needle), as ``end(of:in:)-(_,UnsafeRawBufferPointer)`` finds it.
    static func end(of needle: String, in text: String) -> Int? {
        var text = text
        return text.withUTF8 { end(of: needle, in: UnsafeRawBufferPointer($0)) }
    }

    /// The offset just past the first `needle` in `bytes`, if any (`nil` for an empty needle):
    /// the C library's `memchr` finds each candidate first byte and `memcmp` compares the rest,
    /// both many bytes at a time (a byte-at-a-time loop here took 8% of the load generator's
    /// samples in `chat-load requests`: `isAnswer`'s two failed searches over every event frame).
    /// `memmem` would do both, but Glibc's module does not export it.
    static func end(of needle: String, in bytes: UnsafeRawBufferPointer) -> Int? {
        var needle = needle
        return needle.withUTF8 { pattern -> Int? in
            guard !pattern.isEmpty, bytes.count >= pattern.count, let base = bytes.baseAddress,
                let first = pattern.baseAddress
            else { return nil }
            let last = bytes.count - pattern.count  // the last offset a match can start at
            var offset = 0
            while offset <= last {
                guard let found = memchr(base + offset, Int32(first.pointee), last - offset + 1) else { return nil }
                let start = base.distance(to: UnsafeRawPointer(found))
                if memcmp(base + start, first, pattern.count) == 0 { return start + pattern.count }
                offset = start + 1
            }
            return nil
        }
    }

    /// Whether `text` is an answer to a request (`response` or `failure` frame), told as
    /// ``isAnswer(_:)-(UnsafeRawBufferPointer)`` tells it.
    static func isAnswer(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isAnswer(UnsafeRawBufferPointer($0)) }
    }

    /// Whether the frame `bytes` is an answer to a request (`response` or `failure` frame).
    ///
    /// A frame whose first key is `"type"` (how the server's own writer starts every event and
    /// answer) is told by its first bytes; any other is searched whole.
    /// - Complexity: O(1) for a frame that starts with its type, else O(length of `bytes`).
    static func isAnswer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let kind = leadingKind(of: bytes) { return kind != .other }
        return end(of: "\"type\":\"response\"", in: bytes) != nil || end(of: "\"type\":\"failure\"", in: bytes) != nil
    }

    /// Whether `text` is a `response` frame (an acknowledged request), told as ``isAnswer(_:)``.
    static func isResponse(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isResponse(UnsafeRawBufferPointer($0)) }
    }

    /// Whether the frame `bytes` is a `response` frame (an acknowledged request), told as
    /// ``isAnswer(_:)``.
    static func isResponse(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let kind = leadingKind(of: bytes) { return kind == .response }
        return end(of: "\"type\":\"response\"", in: bytes) != nil
    }

    private enum Kind { case response, failure, other }

    /// The frame's kind read after a leading `{"type":"`; `nil` when it does not start so.
    private static func leadingKind(of bytes: UnsafeRawBufferPointer) -> Kind? {
        let prefix: StaticString = "{\"type\":\""
        let count = prefix.utf8CodeUnitCount
        guard bytes.count > count, memcmp(bytes.baseAddress!, prefix.utf8Start, count) == 0 else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[count...])
        // The type's letters, then the quote that ends them.
        func starts(with type: StaticString) -> Bool {
            rest.count > type.utf8CodeUnitCount
                && memcmp(rest.baseAddress!, type.utf8Start, type.utf8CodeUnitCount) == 0
                && rest[type.utf8CodeUnitCount] == UInt8(ascii: "\"")
        }
        if starts(with: "response") { return .response }
        if starts(with: "failure") { return .failure }
        return .other
    }

    /// The send stamp a latency frame carries after its first `t=`: the (possibly negative)
    /// integer there; `nil` without one.
    static func stamp(in text: String) -> Int64? {
        integer(after: "t=", in: text).map(Int64.init)
    }

    /// The (possibly negative) integer right after the first `prefix` in `text`; `nil` without
    /// one.
    static func integer(after prefix: String, in text: String) -> Int? {
        var text = text
        return text.withUTF8 { integer(after: prefix, in: UnsafeRawBufferPointer($0)) }
    }

    /// The (possibly negative) integer right after the first `prefix` in the frame `bytes`; `nil`
    /// without one.
    static func integer(after prefix: String, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard var index = end(of: prefix, in: bytes) else { return nil }
        var sign = 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            sign = -1
            index += 1
        }
        var value = 0
        var digits = 0
        while index < bytes.count, case let byte = bytes[index], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        return digits > 0 ? sign * value : nil
    }
}
