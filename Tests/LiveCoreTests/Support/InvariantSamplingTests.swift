import Testing

@testable import LiveCore

@Suite struct InvariantSamplingTests {
    /// Small structures are checked after every mutation; a structure of n elements after one
    /// mutation in n / smallCount, so the checks cost about smallCount elements per mutation.
    @Test func everyMutationWhileSmallThenOneInNOverSmallCount() {
        var sampling = InvariantSampling()
        let small = InvariantSampling.smallCount
        #expect((0..<100).allSatisfy { _ in sampling.isDue(count: small) })
        #expect((0..<100).allSatisfy { _ in sampling.isDue(count: 0) })

        var large = InvariantSampling()
        let picked = (1...1_000).filter { _ in large.isDue(count: small * 10) }
        #expect(picked == Array(stride(from: 10, through: 1_000, by: 10)))
    }
}
