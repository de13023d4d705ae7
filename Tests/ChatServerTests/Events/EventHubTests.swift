import Testing
import TestSupport

@testable import ChatServer

@Suite struct EventHubTests {
    /// An audience's candidates are visited once each: the short-list path (pairwise) and the
    /// long one (hashed) both drop exactly the repeats (seeded lists of 0 to 20 ids).
    @Test func audienceCandidatesAreVisitedOnceEach() {
        let seed = SeededGenerator.testSeed(0xA0D1)
        var random = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            let ids = (0..<Int.random(in: 0...20, using: &random)).map { _ in
                "u\(Int.random(in: 0..<12, using: &random))"
            }
            let unique = EventHub.unique(ids)
            #expect(unique.count == Set(unique).count, "a repeat is left: \(unique), seed \(seed)")
            #expect(Set(unique) == Set(ids), "an id is lost: \(ids) → \(unique), seed \(seed)")
        }
    }
}
