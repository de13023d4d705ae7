import Foundation

/// Builds rows of the cache file's compact binary encoding (``RowCodable``), appending to one
/// reusable byte buffer.
///
/// The encoding: integers as LEB128 varints (signed ones zigzag-mapped first, so small negative
/// numbers stay short); counts as unsigned varints; `Double` and `Date` (its
/// `timeIntervalSinceReferenceDate`) as their 8-byte IEEE 754 bit pattern, little-endian, so
/// they round-trip exactly; `Bool` as one byte 0 or 1; strings as a count of UTF-8 bytes and the
/// bytes; an optional as a presence byte (0 or 1) and, when present, the value; an array as its
/// count and its elements. No field names and no padding: the order of the writes is the
/// format, and ``RowReader`` reads in the same order.
///
/// Every write is amortized O(size of what it appends). Not thread-safe (a value type: each
/// writer has its own buffer).
package struct RowWriter: Sendable {
    /// The row so far.
    package private(set) var bytes: [UInt8]

    /// An empty writer whose buffer holds `capacity` bytes before it grows.
    package init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the row, keeping the buffer's capacity for the next one. O(1).
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends one raw byte (a tag, an enum's code).
    package mutating func write(byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends an unsigned varint: 7 bits a byte, low bits first, the high bit set on every byte
    /// but the last (1 to 10 bytes).
    package mutating func write(unsigned value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a signed integer: zigzag-mapped (0, -1, 1, -2, … become 0, 1, 2, 3, …), then a
    /// varint.
    package mutating func write(_ value: Int) {
        let zigzag = (value << 1) ^ (value >> (Int.bitWidth - 1))
        write(unsigned: UInt64(UInt(bitPattern: zigzag)))
    }

    /// Appends a count (of bytes, elements or members) as an unsigned varint.
    package mutating func write(count: Int) {
        write(unsigned: UInt64(count))
    }

    /// Appends one byte, 1 for `true`, 0 for `false`.
    package mutating func write(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// Appends the 8-byte bit pattern, little-endian.
    package mutating func write(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends `timeIntervalSinceReferenceDate` as a `Double` (exact: that is what a `Date` is).
    package mutating func write(_ value: Date) {
        write(value.timeIntervalSinceReferenceDate)
    }

    /// Appends the UTF-8 byte count and the bytes.
    package mutating func write(_ value: String) {
        let utf8 = value.utf8
        write(count: utf8.count)
        if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends the count and each string.
    package mutating func write(_ values: [String]) {
        write(count: values.count)
        for value in values { write(value) }
    }

    /// Appends a presence byte and, when present, the string.
    package mutating func write(_ value: String?) {
        write(value != nil)
        if let value { write(value) }
    }

    /// Appends a presence byte and, when present, the date.
    package mutating func write(_ value: Date?) {
        write(value != nil)
        if let value { write(value) }
    }
}
