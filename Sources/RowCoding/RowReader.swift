import Foundation

/// Reads a row of the cache file's compact binary encoding (see ``RowWriter`` for the format)
/// from a byte buffer, in the order it was written.
///
/// Every read checks the bounds first and throws ``RowCodingError`` on bytes that cannot be
/// what is read — never reads past the end, never traps: a truncated, damaged or foreign row
/// fails to decode. Counts are checked against the bytes left (each element takes at least one
/// byte), so a damaged count never makes a reader reserve memory for elements that are not there.
///
/// The reader borrows the buffer: use it only while the buffer is valid (inside the
/// `withUnsafeBytes` or SQLite column access that produced it). Every read is O(size of what it
/// reads).
package struct RowReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    /// A reader at the start of `bytes`.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The bytes not read yet.
    package var remaining: Int { bytes.count - offset }

    /// Throws unless every byte was read: a row is exactly one value.
    package func finish() throws(RowCodingError) {
        guard remaining == 0 else { throw .invalid("\(remaining) bytes after the value") }
    }

    /// One raw byte.
    package mutating func byte() throws(RowCodingError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        let value = bytes[offset]
        offset += 1
        return value
    }

    /// An unsigned varint (at most 10 bytes, at most 64 bits).
    package mutating func unsigned() throws(RowCodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            if shift == 63 && byte > 1 { throw .invalid("a varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A signed integer (zigzag varint).
    package mutating func int() throws(RowCodingError) -> Int {
        let zigzag = UInt(try unsigned())
        return Int(bitPattern: zigzag >> 1) ^ -Int(bitPattern: zigzag & 1)
    }

    /// A count of elements (or bytes) that follow: at most the bytes left.
    package mutating func count() throws(RowCodingError) -> Int {
        let count = try unsigned()
        guard count <= UInt64(remaining) else { throw .invalid("a count of \(count) with \(remaining) bytes left") }
        return Int(count)
    }

    /// A Boolean: the byte 0 or 1.
    package mutating func bool() throws(RowCodingError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw .invalid("\(other) is not a Boolean")
        }
    }

    /// An 8-byte little-endian `Double`; never a NaN.
    ///
    /// No stored value holds a NaN (JSON cannot carry one, and dates and intervals are numbers),
    /// so a NaN is damage. It is refused because it equals nothing, itself included: a value
    /// holding one would never compare equal to its own copy read back from the file.
    package mutating func double() throws(RowCodingError) -> Double {
        guard remaining >= 8 else { throw .truncated }
        let bits = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let value = Double(bitPattern: UInt64(littleEndian: bits))
        guard !value.isNaN else { throw .invalid("a number that is NaN") }
        offset += 8
        return value
    }

    /// A `Date` (its `timeIntervalSinceReferenceDate`): finite, or the row is refused (no date
    /// the server or a client keeps is infinite, and none may reach a timer or the wire).
    package mutating func date() throws(RowCodingError) -> Date {
        let interval = try double()
        guard interval.isFinite else { throw .invalid("a date that is not finite") }
        return Date(timeIntervalSinceReferenceDate: interval)
    }

    /// A string: a byte count and that many bytes of valid UTF-8.
    package mutating func string() throws(RowCodingError) -> String {
        let count = try count()
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        offset += count
        // ASCII (ids, most text) is valid UTF-8 as it is: the unchecked decoding skips the
        // generic validating initializer, a third of the cost of reading a stored message.
        if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
        guard let value = String(validating: utf8, as: UTF8.self) else { throw .invalid("a string that is not UTF-8") }
        return value
    }

    /// An array of strings: a count and the strings.
    package mutating func strings() throws(RowCodingError) -> [String] {
        let count = try count()
        var values: [String] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try string()) }
        return values
    }

    /// A presence byte: whether an optional value follows.
    package mutating func isPresent() throws(RowCodingError) -> Bool {
        try bool()
    }

    /// An optional string.
    package mutating func optionalString() throws(RowCodingError) -> String? {
        try isPresent() ? try string() : nil
    }

    /// An optional date.
    package mutating func optionalDate() throws(RowCodingError) -> Date? {
        try isPresent() ? try date() : nil
    }
}
