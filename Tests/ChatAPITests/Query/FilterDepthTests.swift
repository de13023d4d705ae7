import ChatAPI
import Foundation
import Testing

/// A filter nested `depth` levels deep (a condition is depth 1), built without recursion.
func nestedFilter(depth: Int) -> Filter {
    var filter: Filter = .equal(.type, to: .community)
    for level in 1..<depth { filter = level.isMultiple(of: 2) ? .and([filter]) : .or([filter, .all]) }
    return filter
}

@Suite struct FilterDepthTests {
    @Test func filtersUpToTheDepthLimitAreValidDeeperOnesAreRefusedWithoutOverflow() throws {
        try nestedFilter(depth: Filter.maximumDepth).validate()
        #expect(chatErrorOf { try nestedFilter(depth: Filter.maximumDepth + 1).validate() }?.field == "filter")
        // 10,000 deep used to overflow the stack in validate().
        let hostile = ChannelListQuery(filter: nestedFilter(depth: 10_000))
        #expect(chatErrorOf { try hostile.validate() }?.field == "filter")
    }

    @Test func operandsMustBeFiniteAndShallow() {
        #expect(chatErrorOf { try Filter.equal("score", to: .number(.nan)).validate() }?.field == "metadata.score")
        #expect(
            chatErrorOf { try Filter.condition(.memberCount, .greater(.number(.infinity))).validate() }?.field
                == "memberCount")
        #expect(chatErrorOf { try Filter.in("x", values: [1, .number(-.infinity)]).validate() }?.field == "metadata.x")
        let deep = nestedJSON(depth: 500)
        #expect(chatErrorOf { try Filter.equal("x", to: deep).validate() }?.field == "metadata.x")
        #expect(chatErrorOf { try Filter.contains("x", value: nestedJSON(depth: JSON.maximumDepth)).validate() } == nil)
    }

    @Test func decodingAHostileDeepFilterThrowsInsteadOfOverflowing() {
        var document = #"{"type": "community"}"#
        for _ in 0..<3_000 { document = #"{"$and": ["# + document + "]}" }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Filter.self, from: Data(document.utf8)) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(nestedFilter(depth: 10_000)) }
    }
}
