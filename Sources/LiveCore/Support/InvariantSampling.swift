/// Which mutations of a structure end with its full, O(n) invariant check in debug builds: every
/// one while the structure holds at most ``smallCount`` elements, and one in `n / smallCount` for
/// a structure of n elements, so that the checks add amortized O(``smallCount``) per mutation
/// however large the structure grows (a test that mutates a 100,000-element structure many times
/// stays fast). What a structure can check without a pass over its elements it checks after every
/// mutation regardless.
///
/// A structure keeps one beside its state, in debug builds only.
package struct InvariantSampling: Sendable {
    /// The largest structure whose every mutation is checked in full.
    package static var smallCount: Int { 8 }

    /// Mutations since the last full check.
    private var unchecked = 0

    package init() {}

    /// Counts a mutation of a structure that now holds `count` elements; whether it is one to
    /// check in full.
    package mutating func isDue(count: Int) -> Bool {
        unchecked += 1
        guard unchecked * Self.smallCount >= count else { return false }
        unchecked = 0
        return true
    }
}
