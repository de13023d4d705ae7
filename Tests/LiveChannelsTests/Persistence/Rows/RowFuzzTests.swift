import ChatAPI
import Foundation
@_spi(Persistence) @testable import LiveChannels
import Testing
import TestSupport

/// Damaged rows — truncated, with bytes changed, inserted or removed, or random bytes — decode
/// to an error or to a value, never a crash; a value decoded from damaged bytes is a sound one
/// (it encodes and decodes to itself). Seeded: a failure names its seed.
@Suite struct RowFuzzTests {
    /// Decodes `row` as every cached kind; a decoded value must survive a round trip.
    /// Returns whether any kind decoded it.
    @discardableResult
    private func decodeAsEveryKind(_ row: [UInt8], seed: UInt64) -> Bool {
        var decoded = false
        decoded = check(Channel.self, row, seed: seed) || decoded
        decoded = check(ChannelMember.self, row, seed: seed) || decoded
        decoded = check(Message.self, row, seed: seed) || decoded
        decoded = check(User.self, row, seed: seed) || decoded
        return decoded
    }

    private func check<Entity: RowCodable & Equatable & Versioned>(_ type: Entity.Type, _ row: [UInt8], seed: UInt64) -> Bool {
        guard let value = try? Entity.decodeRow(row) else { return false }
        do {
            let again = try Entity.decodeRow(RowSamples.encode(value))
            // A damaged number may be a NaN, which equals nothing, itself included.
            if value == value {
                #expect(again == value && again.version == value.version, "seed \(seed): \(Entity.self) from \(row)")
            }
        } catch {
            Issue.record("seed \(seed): \(Entity.self) decoded from \(row) does not round-trip: \(error)")
        }
        return true
    }

    @Test func everyTruncatedRowThrows() throws {
        var generator = SeededGenerator(seed: 0x5452_554E)
        var rows = try RowSamples.rows()
        for _ in 0..<20 {
            rows.append(try RowSamples.encode(RowSamples.channel(using: &generator)))
            rows.append(try RowSamples.encode(RowSamples.message(using: &generator)))
        }
        for row in rows {
            for length in 0..<row.count {
                #expect(!decodeAsEveryKind(Array(row.prefix(length)), seed: generator.seed), "a prefix of \(length) bytes decoded")
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func damagedRowsThrowOrDecode(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let samples = try RowSamples.rows() + [
            RowSamples.encode(RowSamples.channel(using: &generator)), RowSamples.encode(RowSamples.message(using: &generator)),
        ]
        for _ in 0..<2_000 {
            var row = samples.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<max(row.count, 1), using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0 where !row.isEmpty: row[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                case 1 where !row.isEmpty: row[index] = UInt8.random(in: 0...255, using: &generator)
                case 2: row.insert(UInt8.random(in: 0...255, using: &generator), at: min(index, row.count))
                case 3 where !row.isEmpty: row.remove(at: index)
                default: row = Array(row.prefix(index))
                }
            }
            decodeAsEveryKind(row, seed: seed)
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func randomBytesThrowOrDecode(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            var row = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Start with a real tag half the time, so decoding gets past the first byte.
            if !row.isEmpty && Bool.random(using: &generator) { row[0] = [0x43, 0x4D, 0x47, 0x55].randomElement(using: &generator)! }
            decodeAsEveryKind(row, seed: seed)
        }
    }
}
