import ChatAPI
@_spi(Persistence) @testable import LiveChannels
@testable import RowCoding
import Testing
import TestSupport

/// JSON metadata in the row encoding: every kind of value, and no unbounded recursion.
@Suite struct JSONRowCodableTests {
    /// `members` written and read back as metadata.
    private func roundTrip(_ members: [String: JSON]) throws -> [String: JSON] {
        var writer = RowWriter()
        try JSON.write(members, to: &writer)
        return try writer.bytes.withUnsafeBytes { buffer in
            Result { () throws(RowCodingError) in
                var reader = RowReader(buffer)
                let members = try JSON.members(from: &reader)
                try reader.finish()
                return members
            }
        }.get()
    }

    @Test func everyKindOfValueRoundTrips() throws {
        #expect(try roundTrip(RowSamples.metadata) == RowSamples.metadata)
        #expect(try roundTrip([:]) == [:])
    }

    @Test func randomValuesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x4A53_4F4E)
        for _ in 0..<500 {
            let members = RowSamples.object(depth: 4, using: &generator)
            #expect(try roundTrip(members) == members, "seed \(generator.seed)")
        }
    }

    /// `["a": [[[…]]]]` with `depth` arrays.
    private func nested(_ depth: Int) -> [String: JSON] {
        var value: JSON = 1
        for _ in 0..<depth { value = .array([value]) }
        return ["a": value]
    }

    @Test func valuesWithinTheDecodingDepthRoundTrip() throws {
        let deepest = nested(JSON.maximumDecodingDepth - 1)  // the object is one level
        #expect(try roundTrip(deepest) == deepest)
    }

    @Test func valuesNestedTooDeepAreRefusedBothWays() throws {
        var writer = RowWriter()
        #expect(throws: RowCodingError.tooDeep) { try JSON.write(nested(JSON.maximumDecodingDepth), to: &writer) }
        // A damaged row claiming 100,000 nested arrays: refused, no stack overflow.
        let hostile: [UInt8] = [1, 1, 0x61] + Array([[UInt8]](repeating: [5, 1], count: 100_000).joined()) + [0]
        let error = hostile.withUnsafeBytes { buffer in
            Result { () throws(RowCodingError) in
                var reader = RowReader(buffer)
                return try JSON.members(from: &reader)
            }
        }
        #expect(throws: RowCodingError.tooDeep) { try error.get() }
    }
}
