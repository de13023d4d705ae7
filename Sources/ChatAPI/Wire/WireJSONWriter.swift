import Foundation

/// Writes compact JSON as UTF-8 bytes into one growing buffer: the hand-written encoder of the
/// hot frames (``WireCodec``'s `event`, `response` and `failure` frames, and a client's most
/// frequent `request`s), without what makes
/// `JSONEncoder` costly per value: no boxing of every value behind an `Encoder` existential, no
/// intermediate tree, no dictionary per object.
///
/// It writes what `WireCodec`'s `JSONEncoder` writes (`.secondsSince1970` dates,
/// `.withoutEscapingSlashes`): the same keys and shapes (the per-model extensions mirror each
/// `Codable` conformance), the same number texts, the same string escapes. Only the order of
/// an object's keys may differ (`JSONEncoder` writes them in hash order; the writer in
/// declaration order), which JSON does not give a meaning to.
///
/// The writer is a cursor, not a validator: it trusts its callers to pair `begin`/`end` calls
/// and to give every key a value (the model extensions are its only callers). Separators are
/// its own business: a key or a value after another in the same container gets its comma.
///
/// What it cannot write the way `JSONEncoder` would, it refuses (``Unwritable``) instead of
/// writing anything wrong; ``WireCodec`` then encodes that frame with `JSONEncoder`.
///
/// - Complexity: every method is O(size of what it writes), amortized (the buffer doubles).
package struct WireJSONWriter {
    /// What the writer refuses to write; the frame is then encoded by `JSONEncoder`, which
    /// writes or refuses it as it always did.
    package enum Unwritable: Error, Hashable {
        /// A NaN or infinite number: JSON has none (`JSONEncoder` throws an `EncodingError`).
        case nonFiniteNumber
        /// A `JSON` value nested deeper than `JSON.maximumDepth`: left to `JSONEncoder`, which
        /// enforces `JSON.maximumDecodingDepth` on the whole coding path.
        case tooDeep
        /// A request the writer does not write (not one a client sends often): `JSONEncoder`'s.
        case rareRequest
    }

    /// The UTF-8 bytes written so far.
    package private(set) var bytes: [UInt8]
    /// Whether what comes next follows a value in the same container, so needs a comma first.
    private var followsValue = false
    /// The channel written last and where its JSON lies in ``bytes``: writing that same value
    /// again (the events of one change carry one channel value, and a batch of frames is one
    /// writer's buffer) copies those bytes instead of encoding it again.
    private var lastChannel: (channel: Channel, range: Range<Int>)?
    /// How many channels were copied from an earlier writing (for tests).
    package private(set) var channelsCopied = 0

    /// An empty writer whose buffer holds `capacity` bytes before it grows.
    package init(capacity: Int = 1_024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer that goes on after `bytes` (what it writes starts a new top-level value): it
    /// takes the buffer, leaving `bytes` empty until ``takeBytes()`` gives it back, so that
    /// appending copies nothing already written.
    package init(appendingTo bytes: inout [UInt8]) {
        self.bytes = []
        swap(&self.bytes, &bytes)
    }

    /// The buffer written, taken out of the writer (which is left empty).
    package mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        followsValue = false
        lastChannel = nil
        return taken
    }

    /// How many bytes are written.
    package var count: Int { bytes.count }

    /// What is written next starts a new top-level value (the next frame of a batch): no comma
    /// before it.
    package mutating func startNextValue() {
        followsValue = false
    }

    /// Appends `json`, the bytes of one complete top-level value encoded elsewhere (a frame
    /// `JSONEncoder` wrote).
    package mutating func append(topLevel json: some Sequence<UInt8>) {
        bytes.append(contentsOf: json)
        followsValue = false
    }

    /// Makes room for `count` more bytes: exactly for an empty buffer (a frame of its own), else
    /// by doubling (a batch's buffer: an exact reservation at every frame would copy it each time).
    package mutating func reserve(_ count: Int) {
        let needed = bytes.count + count
        guard bytes.capacity < needed else { return }
        bytes.reserveCapacity(bytes.isEmpty ? needed : max(needed, bytes.capacity * 2))
    }

    /// Drops what was written after the first `count` bytes (what a refused frame wrote).
    /// - Precondition: `count` is at most the bytes written.
    package mutating func truncate(to count: Int) {
        bytes.removeSubrange(count...)
        followsValue = false
        if let last = lastChannel, last.range.upperBound > count { lastChannel = nil }
    }

    // MARK: Channels written before

    /// Writes `channel` as the JSON written for it before, if this very value (see
    /// `Channel.isUnchangedCopy(of:)`) is the last channel written into this buffer; returns
    /// whether it did.
    /// - Complexity: O(size of that JSON), a copy.
    mutating func copyWrittenChannel(_ channel: Channel) -> Bool {
        guard let last = lastChannel, last.range.upperBound <= bytes.count, last.channel.isUnchangedCopy(of: channel)
        else { return false }
        let range = last.range
        separate()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: range.count) { copy in
            _ = bytes.withUnsafeBufferPointer { written in copy.initialize(fromContentsOf: written[range]) }
            bytes.append(contentsOf: copy)
        }
        followsValue = true
        channelsCopied += 1
        return true
    }

    /// Writes `channel` with `write` (which writes one complete value) and notes where it lies
    /// for ``copyWrittenChannel(_:)``.
    mutating func writeChannel(
        _ channel: Channel, _ write: (inout WireJSONWriter) throws(Unwritable) -> Void
    ) throws(Unwritable) {
        separate()
        followsValue = false
        let start = bytes.count
        try write(&self)
        lastChannel = (channel, start..<bytes.count)
    }

    // MARK: Structure

    /// Writes a comma when the next key or value follows another.
    @inline(__always)
    private mutating func separate() {
        if followsValue { bytes.append(UInt8(ascii: ",")) }
    }

    /// Opens an object (as a value: after a key, in an array, or at the top).
    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        followsValue = false
    }

    /// Closes the innermost object.
    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        followsValue = true
    }

    /// Opens an array (as a value).
    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        followsValue = false
    }

    /// Closes the innermost array.
    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        followsValue = true
    }

    /// Writes a key the code names: `name` must be ASCII needing no escape (every coding key
    /// is), so it is copied as it is. The next call writes its value.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        followsValue = false
    }

    /// Writes a key from data (a metadata key), escaped as a string is.
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        followsValue = false
    }

    /// Opens the payload of a case of an enum with associated values, as Swift's synthesized
    /// `Codable` writes it: `{"name":{` (the payload's keys are the labels, `_0`, `_1`, … for
    /// unlabelled values). Close it with ``endCase()``.
    package mutating func beginCase(_ name: StaticString) {
        beginObject()
        key(name)
        beginObject()
    }

    /// Closes what ``beginCase(_:)`` opened.
    package mutating func endCase() {
        endObject()
        endObject()
    }

    /// Writes `json`, the bytes of one complete JSON value written before (a shared event's
    /// JSON), as the next value.
    package mutating func value(encoded json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        followsValue = true
    }

    // MARK: Scalars

    /// Writes `null`.
    package mutating func null() {
        separate()
        append("null")
        followsValue = true
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        followsValue = true
    }

    /// Writes an integer in decimal, as `JSONEncoder` does (`String(value)`), without making a
    /// string.
    package mutating func int(_ value: Int) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; written backwards, then copied in order.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
        followsValue = true
    }

    /// Writes a number as `JSONEncoder` does: Swift's shortest round-tripping text of the
    /// double (its `description`) with a trailing `.0` dropped (`1700000000`, `0.5`, `1e+16`,
    /// `-0`), so it decodes to exactly the same double.
    ///
    /// - Throws: ``Unwritable/nonFiniteNumber`` for a NaN or an infinity.
    package mutating func double(_ value: Double) throws(Unwritable) {
        guard value.isFinite else { throw .nonFiniteNumber }
        // The common integral values (counts, whole seconds, integer metadata) as integers:
        // below 2^53 `description` is `N.0`, so this is the same text, without the formatting.
        if value.rounded(.towardZero) == value, value.magnitude < 0x1p53, !(value == 0 && value.sign == .minus) {
            int(Int(value))
            return
        }
        separate()
        // The same text as `description`, written straight into the buffer: `description`
        // allocates a `String` for every text over 15 bytes (a date's seconds with their
        // fraction are 17), 13 allocations per message sent.
        let start = bytes.count
        var output = ASCIIAppender(bytes: bytes)
        bytes = []
        value.write(to: &output)
        bytes = output.bytes
        if bytes.count - start >= 2, bytes[bytes.count - 2] == UInt8(ascii: "."),
            bytes[bytes.count - 1] == UInt8(ascii: "0")
        {
            bytes.removeLast(2)
        }
        followsValue = true
    }

    /// Writes a date as `.secondsSince1970` does: its `timeIntervalSince1970` as a number.
    ///
    /// - Throws: ``Unwritable/nonFiniteNumber`` for a date at an infinite or NaN interval.
    package mutating func date(_ value: Date) throws(Unwritable) {
        try double(value.timeIntervalSince1970)
    }

    /// Writes a string, escaped as `JSONEncoder` escapes it: `"` and `\` with a backslash;
    /// backspace, form feed, newline, carriage return and tab as `\b` `\f` `\n` `\r` `\t`; the
    /// other control characters below U+0020 as `\u00xx` (lowercase hex). Everything else,
    /// `/` and non-ASCII included, is copied as UTF-8.
    package mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
        followsValue = true
    }

    /// Writes an array of strings.
    package mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// Appends `utf8` escaped: runs that need no escape are copied whole.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                append("u00")
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// Appends ASCII text as it is (no separator, no escaping).
    @inline(__always)
    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    // MARK: JSON values

    /// Writes a metadata object (`[String: JSON]`) as `JSONEncoder` does: a JSON object, its
    /// members in the dictionary's order.
    ///
    /// - Throws: ``Unwritable/nonFiniteNumber`` for a NaN or infinite number in it,
    ///   ``Unwritable/tooDeep`` when it nests deeper than `JSON.maximumDepth` (the object
    ///   itself is depth 1, as `JSON.validate` counts).
    /// - Complexity: O(size of the value); recursion no deeper than `JSON.maximumDepth`.
    package mutating func metadata(_ members: [String: JSON]) throws(Unwritable) {
        try object(members, depth: 1)
    }

    /// Writes any `JSON` value (see ``metadata(_:)``; a scalar is depth 0).
    package mutating func json(_ value: JSON) throws(Unwritable) {
        try json(value, depth: 0)
    }

    private mutating func json(_ value: JSON, depth: Int) throws(Unwritable) {
        switch value {
        case .null: null()
        case .bool(let value): bool(value)
        case .number(let value): try double(value)
        case .string(let value): string(value)
        case .array(let elements):
            guard depth < JSON.maximumDepth else { throw .tooDeep }
            beginArray()
            for element in elements { try json(element, depth: depth + 1) }
            endArray()
        case .object(let members):
            try object(members, depth: depth + 1)
        }
    }

    /// Writes an object at nesting `depth` (1 for a top-level one).
    private mutating func object(_ members: [String: JSON], depth: Int) throws(Unwritable) {
        guard depth <= JSON.maximumDepth else { throw .tooDeep }
        beginObject()
        for (name, member) in members {
            key(name)
            try json(member, depth: depth)
        }
        endObject()
    }
}

/// A `TextOutputStream` over the writer's buffer: a number's text (`Double.write(to:)`, the
/// same text as its `description`) is appended as it is formatted, without a `String` between.
/// `_writeASCII` is the stream requirement the standard library's number types write through
/// (its default makes a `String`, then calls `write(_:)`, which stays correct for any other).
private struct ASCIIAppender: TextOutputStream {
    var bytes: [UInt8]

    mutating func write(_ string: String) {
        bytes.append(contentsOf: string.utf8)
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }
}
