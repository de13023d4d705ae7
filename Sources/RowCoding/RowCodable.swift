/// A value the cache file stores as one row of its compact binary encoding: a tag byte naming
/// the kind, then the value's fields in a fixed order (see ``RowWriter`` for how each field is
/// written). Nothing but the order of the fields describes them, so a change of a type's stored
/// fields changes the format: it needs a new ``CacheSchema/version``.
///
/// Encoding and decoding are O(size of the value). Decoding throws ``RowCodingError`` for any
/// bytes that are not a row of this kind written by this format — never reads out of bounds.
package protocol RowCodable {
    /// The first byte of every row of this kind: a row of another kind fails to decode.
    static var rowTag: UInt8 { get }

    /// Appends the value's fields (not the tag) to `writer`.
    /// - Throws: ``RowCodingError/tooDeep`` for metadata nested too deep.
    func writeFields(to writer: inout RowWriter) throws(RowCodingError)

    /// Reads the fields written by ``writeFields(to:)``.
    /// - Throws: ``RowCodingError`` when they are not there.
    init(fields reader: inout RowReader) throws(RowCodingError)
}

extension RowCodable {
    /// Appends the whole row: the tag, then the fields.
    package func encodeRow(to writer: inout RowWriter) throws(RowCodingError) {
        writer.write(byte: Self.rowTag)
        try writeFields(to: &writer)
    }

    /// Decodes a whole row: the tag, the fields, and nothing after them.
    /// - Throws: ``RowCodingError`` for a row that is truncated, damaged, of another kind or
    ///   has bytes left over.
    package static func decodeRow(_ bytes: UnsafeRawBufferPointer) throws(RowCodingError) -> Self {
        var reader = RowReader(bytes)
        let tag = try reader.byte()
        guard tag == rowTag else { throw .invalid("tag \(tag) where a \(Self.self) row has \(rowTag)") }
        let value = try Self(fields: &reader)
        try reader.finish()
        return value
    }

    /// Decodes a whole row from an array of bytes (see ``decodeRow(_:)-(UnsafeRawBufferPointer)``).
    package static func decodeRow(_ bytes: [UInt8]) throws(RowCodingError) -> Self {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(RowCodingError) in try decodeRow(buffer) }
        }.get()
    }
}
