import ChatAPI
import Foundation
import TestSupport
import Testing

@Suite struct JSONTests {
    @Test func literalsAndAccessors() {
        let value: JSON = ["name": "LA", "score": 3, "ok": true, "list": [1, "two"], "none": nil]
        #expect(value["name"]?.stringValue == "LA")
        #expect(value["score"]?.numberValue == 3)
        #expect(value["ok"]?.boolValue == true)
        #expect(value["list"]?[1]?.stringValue == "two")
        #expect(value["none"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["list"]?[5] == nil)
    }

    @Test func dottedPath() {
        let value: JSON = ["custom_score": ["value": 7]]
        #expect(value[path: "custom_score.value"]?.numberValue == 7)
        #expect(value[path: "custom_score.other"] == nil)
    }

    /// The counted size equals `JSONEncoder`'s bytes for every kind of value: escapes, control
    /// characters, non-ASCII text, integral and fractional numbers, negative zero, large and
    /// tiny exponents, nesting (a seeded generator; the seed is printed on failure).
    @Test func encodedSizeCountsWhatJSONEncoderWrites() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let strings = [
            "", "plain", "quote \" and \\ backslash", "tab\tnew\nline\r\u{08}\u{0C}", "\u{01}\u{1F}", "é ✨ 𝄞", "a/b",
        ]
        let numbers: [Double] = [
            0, -0.0, 1, -1, 42, 0.5, -2.25, 1e16, 1e-7, 123_456_789.125, 0x1p53, -0x1p60, .pi, 1e300,
        ]
        func value(_ depth: Int) -> JSON {
            switch generator.next() % (depth > 3 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(generator.next() % 2 == 0)
            case 2: return .number(numbers[Int(generator.next() % UInt64(numbers.count))])
            case 3, 4: return .string(strings[Int(generator.next() % UInt64(strings.count))])
            case 5: return .array((0..<Int(generator.next() % 4)).map { _ in value(depth + 1) })
            default:
                var members: [String: JSON] = [:]
                for _ in 0..<Int(generator.next() % 4) {
                    members[strings[Int(generator.next() % UInt64(strings.count))] + "\(generator.next() % 10)"] =
                        value(depth + 1)
                }
                return .object(members)
            }
        }
        for _ in 0..<500 {
            let sample = value(0)
            let encoded = try JSONEncoder().encode(sample)
            #expect(sample.encodedSize == encoded.count, "seed \(seed): \(String(decoding: encoded, as: UTF8.self))")
        }
        #expect(JSON.number(.nan).encodedSize == 0)
    }

    @Test func codableRoundTrip() throws {
        let value: JSON = ["a": [1, 2.5, "x", false, nil, ["b": "c"]]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        #expect(value.encodedSize == data.count)
    }
}
