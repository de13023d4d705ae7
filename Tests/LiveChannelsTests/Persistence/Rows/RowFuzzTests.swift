import ChatAPI
import Foundation
@_spi(Persistence) @testable import LiveChannels
@testable import RowCoding
import Testing
import TestSupport

/// Damaged rows — truncated, with bytes changed, inserted or removed, or random bytes — decode
/// to an error or to a value, never a crash; a value decoded from damaged bytes is a sound one
/// (it encodes and decodes to itself).
///
/// Seeded and reproducible from the seed alone: the samples are made by the seeded generator and
/// encoded deterministically (metadata in key order), so a seed damages the same bytes in every
/// process. A failure prints the seed, the round and the whole row. `ROW_FUZZ_SEEDS=N` runs the
/// damage test over seeds 1...N instead of the eight CI runs (`ROW_FUZZ_SEEDS=10000` for a long
/// run).
@Suite struct RowFuzzTests {
    /// Decodes `row` as every cached kind; a decoded value must survive a round trip.
    /// Returns whether any kind decoded it.
    @discardableResult
    private func decodeAsEveryKind(_ row: [UInt8], seed: UInt64, round: Int = 0) -> Bool {
        var decoded = false
        decoded = check(Channel.self, row, seed: seed, round: round) || decoded
        decoded = check(ChannelMember.self, row, seed: seed, round: round) || decoded
        decoded = check(Message.self, row, seed: seed, round: round) || decoded
        decoded = check(User.self, row, seed: seed, round: round) || decoded
        return decoded
    }

    private func check<Entity: RowCodable & Equatable & Versioned>(
        _ type: Entity.Type, _ row: [UInt8], seed: UInt64, round: Int
    ) -> Bool {
        guard let value = try? Entity.decodeRow(row) else { return false }
        do {
            let again = try Entity.decodeRow(RowSamples.encode(value))
            #expect(
                again == value && again.version == value.version,
                "seed \(seed), round \(round): \(Entity.self) from \(row) does not decode back to itself")
        } catch {
            Issue.record(
                "seed \(seed), round \(round): \(Entity.self) decoded from \(row) does not round-trip: \(error)")
        }
        return true
    }

    /// The seeds of ``damagedRowsThrowOrDecode(seed:)``: 1...8, or 1...`ROW_FUZZ_SEEDS`.
    static let damageSeeds: [UInt64] = {
        let count = ProcessInfo.processInfo.environment["ROW_FUZZ_SEEDS"].flatMap { UInt64($0) } ?? 8
        return Array(1...max(count, 1))
    }()

    @Test func everyTruncatedRowThrows() throws {
        var generator = SeededGenerator(seed: 0x5452_554E)
        var rows = try RowSamples.rows()
        for _ in 0..<20 {
            rows.append(try RowSamples.encode(RowSamples.channel(using: &generator)))
            rows.append(try RowSamples.encode(RowSamples.message(using: &generator)))
        }
        for row in rows {
            for length in 0..<row.count {
                #expect(
                    !decodeAsEveryKind(Array(row.prefix(length)), seed: generator.seed),
                    "a prefix of \(length) bytes decoded")
            }
        }
    }

    @Test(arguments: damageSeeds)
    func damagedRowsThrowOrDecode(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let samples =
            try RowSamples.rows() + [
                RowSamples.encode(RowSamples.channel(using: &generator)),
                RowSamples.encode(RowSamples.message(using: &generator)),
            ]
        for round in 0..<2_000 {
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
            decodeAsEveryKind(row, seed: seed, round: round)
        }
    }

    /// Replays exactly: the same seed gives the same damaged rows, byte for byte, whatever the
    /// process's hashing seed (the samples' metadata is a dictionary).
    @Test func samplesAreTheSameBytesForTheSameSeed() throws {
        var first = SeededGenerator(seed: 7)
        var second = SeededGenerator(seed: 7)
        let channel = RowSamples.channel(using: &first)
        // The same members in a dictionary of another capacity iterate in another order.
        var reordered = Dictionary<String, JSON>(minimumCapacity: 512)
        for (key, value) in RowSamples.channel(using: &second).metadata.reversed() { reordered[key] = value }
        var copy = channel
        copy.metadata = reordered
        #expect(try RowSamples.encode(copy) == RowSamples.encode(channel))
        #expect(
            try RowSamples.encode(RowSamples.message(using: &first))
                == RowSamples.encode(RowSamples.message(using: &second)))
    }

    /// What the codec used to accept: a damaged number that is a NaN (in a date, an interval or
    /// metadata). The value held a NaN, which equals nothing, so it never compared equal to its
    /// own copy read back. Now such a row is refused.
    @Test func aNaNAnywhereIsRefused() throws {
        let nan = Double.nan.bitPattern.littleEndian
        let nanBytes = withUnsafeBytes(of: nan) { Array($0) }
        func replacing(_ double: Double, in row: [UInt8]) -> [UInt8] {
            let pattern = withUnsafeBytes(of: double.bitPattern.littleEndian) { Array($0) }
            var row = row
            let start = (0...(row.count - 8)).first { Array(row[$0..<($0 + 8)]) == pattern }!
            row.replaceSubrange(start..<(start + 8), with: nanBytes)
            return row
        }
        let channelRow = try RowSamples.encode(RowSamples.channel)
        // lastActivity (a date), rateLimitWindow (an interval), a metadata number.
        for double in [Date(timeIntervalSinceReferenceDate: -1e9).timeIntervalSinceReferenceDate, 2.5, 1.5e300] {
            #expect(throws: RowCodingError.self) { try Channel.decodeRow(replacing(double, in: channelRow)) }
        }
        let messageRow = try RowSamples.encode(RowSamples.message)
        #expect(throws: RowCodingError.self) {
            try Message.decodeRow(
                replacing(Date(timeIntervalSince1970: 21).timeIntervalSinceReferenceDate, in: messageRow))
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func randomBytesThrowOrDecode(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            var row = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            // Start with a real tag half the time, so decoding gets past the first byte.
            if !row.isEmpty && Bool.random(using: &generator) {
                row[0] = [0x43, 0x4D, 0x47, 0x55].randomElement(using: &generator)!
            }
            decodeAsEveryKind(row, seed: seed)
        }
    }
}
