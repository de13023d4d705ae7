import ChatAPI

/// `JSON` in the cache file's row encoding: a tag byte (null, false, true, number, string,
/// array, object), then the payload — a number as a `Double`, a string as in ``RowWriter``, an
/// array as its count and elements, an object as its count and key–value pairs.
///
/// Both directions refuse values nested deeper than `JSON.maximumDecodingDepth` (as `JSON`'s
/// `Codable` conformance does), so a hostile or damaged value never recurses without bound.
/// O(size of the value).
extension JSON {
    private enum RowTag {
        static let null: UInt8 = 0
        static let `false`: UInt8 = 1
        static let `true`: UInt8 = 2
        static let number: UInt8 = 3
        static let string: UInt8 = 4
        static let array: UInt8 = 5
        static let object: UInt8 = 6
    }

    /// Appends the value; `depth` is the number of arrays and objects around it.
    /// - Throws: ``RowCodingError/tooDeep`` past `JSON.maximumDecodingDepth`.
    package func write(to writer: inout RowWriter, depth: Int) throws(RowCodingError) {
        switch self {
        case .null: writer.write(byte: RowTag.null)
        case .bool(let value): writer.write(byte: value ? RowTag.true : RowTag.false)
        case .number(let value):
            writer.write(byte: RowTag.number)
            writer.write(value)
        case .string(let value):
            writer.write(byte: RowTag.string)
            writer.write(value)
        case .array(let elements):
            guard depth < Self.maximumDecodingDepth else { throw .tooDeep }
            writer.write(byte: RowTag.array)
            writer.write(count: elements.count)
            for element in elements { try element.write(to: &writer, depth: depth + 1) }
        case .object(let members):
            writer.write(byte: RowTag.object)
            try Self.write(members, to: &writer, depth: depth + 1)
        }
    }

    /// Reads a value written by ``write(to:depth:)``.
    /// - Throws: ``RowCodingError`` for bytes that are not one, ``RowCodingError/tooDeep`` past
    ///   `JSON.maximumDecodingDepth`.
    package init(from reader: inout RowReader, depth: Int) throws(RowCodingError) {
        switch try reader.byte() {
        case RowTag.null: self = .null
        case RowTag.false: self = .bool(false)
        case RowTag.true: self = .bool(true)
        case RowTag.number: self = .number(try reader.double())
        case RowTag.string: self = .string(try reader.string())
        case RowTag.array:
            guard depth < Self.maximumDecodingDepth else { throw .tooDeep }
            let count = try reader.count()
            var elements: [JSON] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try JSON(from: &reader, depth: depth + 1)) }
            self = .array(elements)
        case RowTag.object:
            self = .object(try Self.members(from: &reader, depth: depth + 1))
        case let tag:
            throw .invalid("\(tag) is not a JSON tag")
        }
    }

    /// Appends an object's members (a count, then key–value pairs in the order of their keys'
    /// UTF-8 bytes), as metadata is stored; `depth` counts the object itself.
    ///
    /// The key order makes the encoding a function of the value: a dictionary's own order
    /// depends on the process's hashing seed, and equal values must give equal rows in every
    /// process (a seeded test that damages byte *n* must damage the same field every time).
    /// O(k log k) for k members, besides the members themselves.
    package static func write(_ members: [String: JSON], to writer: inout RowWriter, depth: Int = 1)
        throws(RowCodingError)
    {
        guard depth <= maximumDecodingDepth else { throw .tooDeep }
        writer.write(count: members.count)
        let ordered = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (key, value) in ordered {
            writer.write(key)
            try value.write(to: &writer, depth: depth)
        }
    }

    /// Reads an object's members written by ``write(_:to:depth:)``; of repeated keys (only a
    /// damaged row has them) the last stays.
    package static func members(from reader: inout RowReader, depth: Int = 1) throws(RowCodingError) -> [String: JSON] {
        guard depth <= maximumDecodingDepth else { throw .tooDeep }
        let count = try reader.count()
        var members: [String: JSON] = [:]
        members.reserveCapacity(count)
        for _ in 0..<count {
            let key = try reader.string()
            members[key] = try JSON(from: &reader, depth: depth)
        }
        return members
    }
}
