import Foundation
import TestSupport
import Testing

@testable import ChatAPI

@Suite struct SortKeyTests {
    /// Values where a numeric lead could go wrong: missing against -infinity, signed zeros,
    /// infinities, and values that are not numbers at all.
    static let pool: [SortValue] = [
        .missing, .number(-.infinity), .number(-1), .number(-0.0), .number(0), .number(2.5), .number(.infinity),
        .text("a"), .text("B"), .bool(false), .bool(true), .object("{}"), .array("[]"),
    ]

    /// The comparison as written before keys carried a lead: value by value, then the id.
    static func reference(_ lhs: SortKey, _ rhs: SortKey) -> ComparisonResult {
        for index in lhs.values.indices {
            let (a, b) = (lhs.values[index], rhs.values[index])
            if a == b { continue }
            return (a < b) == lhs.ascending[index] ? .orderedAscending : .orderedDescending
        }
        if lhs.id == rhs.id { return .orderedSame }
        return lhs.id < rhs.id ? .orderedAscending : .orderedDescending
    }

    static func randomKey(components: Int, ascending: [Bool], using generator: inout SeededGenerator) -> SortKey {
        SortKey(
            values: (0..<components).map { _ in pool.randomElement(using: &generator)! }, ascending: ascending,
            id: ["x", "y", "z"].randomElement(using: &generator)!)
    }

    /// The fast path (comparing leads) never disagrees with the full comparison.
    @Test func comparingByLeadAgreesWithTheFullComparison() {
        for seed in UInt64(1)...40 {
            var generator = SeededGenerator(seed: seed)
            let components = Int.random(in: 1...2, using: &generator)
            let ascending = (0..<components).map { _ in Bool.random(using: &generator) }
            for _ in 0..<500 {
                let a = Self.randomKey(components: components, ascending: ascending, using: &generator)
                let b = Self.randomKey(components: components, ascending: ascending, using: &generator)
                #expect(a.compare(b) == Self.reference(a, b), "seed \(seed): \(a) vs \(b)")
                #expect((a < b) == (Self.reference(a, b) == .orderedAscending), "seed \(seed)")
                if let order = SortKey.order(ofLead: a.lead, b.lead) {
                    #expect(order == Self.reference(a, b), "seed \(seed): the lead of \(a) vs \(b) decided wrongly")
                }
            }
        }
    }

    @Test func leadIsNumericOnlyForNumbersAndMissing() {
        #expect(SortKey(values: [.number(3)], ascending: [true], id: "a").lead == 3)
        #expect(SortKey(values: [.number(3)], ascending: [false], id: "a").lead == -3)
        #expect(SortKey(values: [.missing], ascending: [true], id: "a").lead == -.infinity)
        #expect(SortKey(values: [.missing], ascending: [false], id: "a").lead == .infinity)
        #expect(SortKey(values: [.text("a")], ascending: [true], id: "a").lead.isNaN)
        #expect(SortKey(values: [], ascending: [], id: "a").lead.isNaN)
    }

    /// A key in a page cursor round-trips without its derived lead, and a cursor whose key
    /// lost a direction is rejected rather than trapping on the first comparison.
    @Test func codingKeepsTheKeyAndRejectsMismatchedDirections() throws {
        let key = SortKey(values: [.number(7), .text("b")], ascending: [false, true], id: "c")
        let data = try JSONEncoder().encode(key)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("lead"))
        let decoded = try JSONDecoder().decode(SortKey.self, from: data)
        #expect(decoded == key && decoded.hashValue == key.hashValue && decoded.lead == key.lead)
        let broken = Data(text.replacingOccurrences(of: "[false,true]", with: "[false]").utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SortKey.self, from: broken) }
    }
}
