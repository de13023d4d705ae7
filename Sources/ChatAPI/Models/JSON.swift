import Foundation

/// A JSON value: the type of channel, user and message metadata.
///
/// Build values with literals (`["sdk_type": "ios", "score": 3, "tags": ["a"]]`), read them with
/// the typed accessors and subscripts, and encode them as plain JSON (`Codable`).
public enum JSON: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// A JSON boolean.
    case bool(Bool)
    /// A JSON number.
    case number(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array.
    case array([JSON])
    /// A JSON object.
    case object([String: JSON])
}

extension JSON {
    /// The string, if this is a `.string`.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is a `.number`.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The Boolean, if this is a `.bool`.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, if this is an `.array`.
    public var arrayValue: [JSON]? { if case .array(let value) = self { value } else { nil } }
    /// The members, if this is an `.object`.
    public var objectValue: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `.null`.
    public var isNull: Bool { self == .null }

    /// The member named `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> JSON? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The value at a dotted path of object keys, such as `"custom_score.value"`; `nil` when any
    /// step is missing or not an object.
    public subscript(path path: String) -> JSON? {
        // The common case, one component: no splitting (filters evaluate this per channel).
        if !path.utf8.contains(UInt8(ascii: ".")) { return self[path] }
        var current: JSON? = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            current = current?[String(component)]
        }
        return current
    }

    /// The number of bytes of this value's compact UTF-8 JSON encoding as `JSONEncoder` writes
    /// it (the measure of the 100 KB metadata limit); 0 for a value JSON cannot encode (a NaN or
    /// infinite number).
    ///
    /// Counted, not encoded: a walk over the value that adds up what each part takes — no
    /// buffer, so a server measures a draft under its lock at the cost of reading it. It
    /// recurses: measure only values that passed ``validate(field:maximumDepth:)``
    /// (``validateMetadata(_:field:)`` does both, in that order).
    ///
    /// - Complexity: O(size of the value).
    public var encodedSize: Int {
        Self.encodedSize(of: self) ?? 0
    }

    /// The encoded size of `value`, or `nil` when it holds a number JSON cannot write.
    private static func encodedSize(of value: JSON) -> Int? {
        switch value {
        case .null: return 4
        case .bool(let value): return value ? 4 : 5
        case .number(let value): return encodedSize(of: value)
        case .string(let value): return encodedSize(of: value)
        case .array(let elements):
            var size = 2 + max(0, elements.count - 1)
            for element in elements {
                guard let element = encodedSize(of: element) else { return nil }
                size += element
            }
            return size
        case .object(let members):
            var size = 2 + max(0, members.count - 1)
            for (name, member) in members {
                guard let member = encodedSize(of: member) else { return nil }
                size += encodedSize(of: name) + 1 + member
            }
            return size
        }
    }

    /// A number's text: an integral value below 2^53 as an integer, any other as its shortest
    /// round-tripping `description` without a trailing `.0`.
    private static func encodedSize(of number: Double) -> Int? {
        guard number.isFinite else { return nil }
        if number.rounded(.towardZero) == number, number.magnitude < 0x1p53, !(number == 0 && number.sign == .minus) {
            var digits = 1
            var rest = Int(number.magnitude) / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            return digits + (number < 0 ? 1 : 0)
        }
        let text = number.description
        return text.utf8.count - (text.hasSuffix(".0") ? 2 : 0)
    }

    /// A string's quoted, escaped text: `"` and `\` and the short control escapes take two
    /// bytes, the other control characters six (`\u00xx`), everything else its UTF-8.
    private static func encodedSize(of string: String) -> Int {
        var size = 2
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: size += 2
            case ..<0x20: size += 6
            default: size += 1
            }
        }
        return size
    }
}

/// Decoding refuses documents nested deeper than ``JSON/maximumDecodingDepth`` (a
/// `DecodingError`), and encoding such a value throws an `EncodingError`, so neither recurses
/// without bound; values within ``JSON/maximumDepth`` always decode and encode.
extension JSON: Codable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if decoder.codingPath.count > Self.maximumDecodingDepth {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "JSON nested deeper than \(Self.maximumDecodingDepth) levels")
        }
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSON].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .array, .object:
            if encoder.codingPath.count > Self.maximumDecodingDepth {
                // A placeholder, not the value: describing a hostile value would recurse too.
                throw EncodingError.invalidValue(
                    "(too deep to describe)",
                    EncodingError.Context(
                        codingPath: [], debugDescription: "JSON nested deeper than \(Self.maximumDecodingDepth) levels")
                )
            }
        default:
            break
        }
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean literal is a JSON boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is a JSON number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A floating-point literal is a JSON number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string literal is a JSON string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal is a JSON array.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// A dictionary literal is a JSON object.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: CustomStringConvertible {
    /// The value as compact JSON with sorted keys; a value nested deeper than
    /// ``maximumDecodingDepth`` is described by a placeholder instead (the encoder recurses, so
    /// logging a hostile value must not overflow the stack).
    public var description: String {
        if nestsDeeper(than: Self.maximumDecodingDepth) {
            return "<JSON nested more than \(Self.maximumDecodingDepth) deep>"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
