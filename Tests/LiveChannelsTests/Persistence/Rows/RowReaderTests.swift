@_spi(Persistence) @testable import LiveChannels
@testable import RowCoding
import Testing

/// The reader's bounds and the writer's primitive encodings, read back.
@Suite struct RowReaderTests {
    /// Reads `bytes` with `read`, requiring every byte to be read.
    private func read<Value>(_ bytes: [UInt8], _ read: (inout RowReader) throws(RowCodingError) -> Value) throws
        -> Value
    {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(RowCodingError) in
                var reader = RowReader(buffer)
                let value = try read(&reader)
                try reader.finish()
                return value
            }
        }.get()
    }

    @Test(arguments: [0, 1, -1, 63, -64, 64, 127, 128, 300, -300, 1 << 31, Int.max, Int.min, Int.max - 1, Int.min + 1])
    func integersRoundTrip(_ value: Int) throws {
        var writer = RowWriter()
        writer.write(value)
        #expect(try read(writer.bytes) { reader throws(RowCodingError) in try reader.int() } == value)
        #expect(writer.bytes.count <= 10)
    }

    @Test func smallIntegersTakeOneByte() {
        for value in -64...63 {
            var writer = RowWriter()
            writer.write(value)
            #expect(writer.bytes.count == 1, "\(value)")
        }
    }

    @Test func aVarintLongerThan64BitsIsRefused() throws {
        let tooLong = [UInt8](repeating: 0xFF, count: 9) + [0x02]
        #expect(throws: RowCodingError.self) {
            try read(tooLong) { reader throws(RowCodingError) in try reader.unsigned() }
        }
        let endless = [UInt8](repeating: 0x80, count: 40)
        #expect(throws: RowCodingError.self) {
            try read(endless) { reader throws(RowCodingError) in try reader.unsigned() }
        }
        let largest = [UInt8](repeating: 0xFF, count: 9) + [0x01]
        #expect(try read(largest) { reader throws(RowCodingError) in try reader.unsigned() } == UInt64.max)
    }

    @Test func aCountPastTheEndIsRefused() {
        // A string of 5 bytes with 2 left; an array of a billion strings.
        #expect(throws: RowCodingError.self) {
            try read([5, 0x61, 0x62]) { reader throws(RowCodingError) in try reader.string() }
        }
        #expect(throws: RowCodingError.self) {
            try read([0x80, 0x94, 0xEB, 0xDC, 0x03, 0]) { reader throws(RowCodingError) in try reader.strings() }
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: RowCodingError.invalid("a string that is not UTF-8")) {
            try read([2, 0xC3, 0x28]) { reader throws(RowCodingError) in try reader.string() }
        }
    }

    @Test func booleansAndPresenceAreZeroOrOne() throws {
        #expect(try read([1]) { reader throws(RowCodingError) in try reader.bool() } == true)
        #expect(throws: RowCodingError.self) { try read([2]) { reader throws(RowCodingError) in try reader.bool() } }
        #expect(throws: RowCodingError.self) {
            try read([7]) { reader throws(RowCodingError) in try reader.optionalString() }
        }
    }

    @Test func readingPastTheEndThrows() {
        #expect(throws: RowCodingError.truncated) {
            try read([]) { reader throws(RowCodingError) in try reader.byte() }
        }
        #expect(throws: RowCodingError.truncated) {
            try read([1, 2, 3]) { reader throws(RowCodingError) in try reader.double() }
        }
        #expect(throws: RowCodingError.truncated) {
            try read([0x80]) { reader throws(RowCodingError) in try reader.int() }
        }
    }

    @Test func doublesAndDatesAreExact() throws {
        for value in [0.1, -0.0, .pi, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity] {
            var writer = RowWriter()
            writer.write(value)
            #expect(
                try read(writer.bytes) { reader throws(RowCodingError) in try reader.double() }.bitPattern
                    == value.bitPattern)
        }
    }
}
