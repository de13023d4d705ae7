import Foundation

/// A small, fast, deterministic random number generator (SplitMix64) for property tests
/// and benchmarks. The same seed always yields the same sequence on every platform.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from; print it when a property fails.
    public let seed: UInt64
    private var state: UInt64

    /// Creates a generator that starts from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    /// The seed for a property test: `fixed`, unless the environment variable `TEST_SEED` names
    /// another (decimal or `0x` hex), so that a run replays exactly and a failure replays from
    /// the seed it prints.
    ///
    /// A fixed seed keeps CI deterministic (a test never fails at random); to explore, run with
    /// `TEST_SEED=$RANDOM` or loop over seeds, and keep any seed that failed as a fixed case.
    public static func testSeed(_ fixed: UInt64) -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment["TEST_SEED"] else { return fixed }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        return parsed ?? fixed
    }
}
