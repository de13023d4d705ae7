/// A JSON document read by a strict parser of RFC 8259 of the tests' own, in a form that
/// compares exactly: booleans apart from numbers, each number by its text (no integer rounded
/// to a double, `1` apart from `1.0`), strings unescaped, objects as dictionaries (the order of
/// their keys does not count).
///
/// For comparing two writings of one value, independently of Foundation: `JSONDecoder` takes
/// seconds to decode thousands of frames as `JSON`, and `JSONSerialization` on Linux merges
/// object keys that differ only by U+FEFF.
///
/// - Complexity: O(size of the text); recursion as deep as the document.
indirect enum JSONTree: Hashable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    /// What is not JSON: the byte offset where the parser gave up.
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "not JSON at byte \(offset)" }
    }

    /// The document in `text`, which must hold one value and nothing else but whitespace.
    init(_ text: String) throws {
        var parser = Parser(bytes: Array(text.utf8))
        self = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw Malformed(offset: parser.index) }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// The next byte, consumed; throws at the end.
        mutating func next() throws -> UInt8 {
            guard index < bytes.count else { throw Malformed(offset: index) }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func expect(_ word: String) throws {
            for byte in word.utf8 where try next() != byte { throw Malformed(offset: index - 1) }
        }

        mutating func value() throws -> JSONTree {
            skipWhitespace()
            guard index < bytes.count else { throw Malformed(offset: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            default: return .number(try number())
            }
        }

        /// The elements of the container opened at `index`, up to `close`: each read by
        /// `element`, separated by commas.
        mutating func elements(until close: UInt8, _ element: (inout Parser) throws -> Void) throws {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == close {
                index += 1
                return
            }
            while true {
                try element(&self)
                skipWhitespace()
                switch try next() {
                case UInt8(ascii: ","): continue
                case close: return
                default: throw Malformed(offset: index - 1)
                }
            }
        }

        mutating func object() throws -> JSONTree {
            var members: [String: JSONTree] = [:]
            try elements(until: UInt8(ascii: "}")) { parser in
                parser.skipWhitespace()
                let key = try parser.string()
                parser.skipWhitespace()
                guard try parser.next() == UInt8(ascii: ":") else { throw Malformed(offset: parser.index - 1) }
                // A key twice is no value two writers can agree on.
                guard members.updateValue(try parser.value(), forKey: key) == nil else {
                    throw Malformed(offset: parser.index)
                }
            }
            return .object(members)
        }

        mutating func array() throws -> JSONTree {
            var elements: [JSONTree] = []
            try self.elements(until: UInt8(ascii: "]")) { parser in elements.append(try parser.value()) }
            return .array(elements)
        }

        /// A string, unescaped; raw control characters are refused, as RFC 8259 says.
        mutating func string() throws -> String {
            guard try next() == UInt8(ascii: "\"") else { throw Malformed(offset: index - 1) }
            var utf8: [UInt8] = []
            while true {
                let byte = try next()
                switch byte {
                case UInt8(ascii: "\""):
                    guard let string = String(validating: utf8, as: UTF8.self) else { throw Malformed(offset: index) }
                    return string
                case ..<0x20: throw Malformed(offset: index - 1)
                case UInt8(ascii: "\\"):
                    let escaped = try next()
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            try expect("\\u")
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw Malformed(offset: index) }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let character = Unicode.Scalar(scalar) else { throw Malformed(offset: index) }
                        utf8.append(contentsOf: String(character).utf8)
                    default: throw Malformed(offset: index - 1)
                    }
                default: utf8.append(byte)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Int(String(UnicodeScalar(try next())), radix: 16) else {
                    throw Malformed(offset: index - 1)
                }
                value = value * 16 + UInt32(digit)
            }
            return value
        }

        /// A number's text, checked against JSON's grammar: `-`? int frac? exp?.
        mutating func number() throws -> String {
            let start = index
            func digits(_ parser: inout Parser) throws -> Int {
                let first = parser.index
                while parser.index < parser.bytes.count, (0x30...0x39).contains(parser.bytes[parser.index]) {
                    parser.index += 1
                }
                guard parser.index > first else { throw Malformed(offset: parser.index) }
                return parser.index - first
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            if try digits(&self) > 1, bytes[integerStart] == UInt8(ascii: "0") { throw Malformed(offset: integerStart) }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                _ = try digits(&self)
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                _ = try digits(&self)
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }
}
