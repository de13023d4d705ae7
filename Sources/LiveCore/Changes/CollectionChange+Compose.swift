extension CollectionChange {
    /// The single change equivalent to this change (A → B) followed by `next` (B → C).
    ///
    /// Elements are followed through both changes; one longest increasing run of the survivors
    /// stays put and the rest move, so the result has the fewest moves for that element
    /// correspondence. An element modified by either change is modified in the result (even if
    /// the second change restored its content: a redundant reload is harmless, a missed one is
    /// not). Applying the result to A yields C.
    ///
    /// Snapshot sizes are not needed: beyond the highest index either change mentions, elements
    /// are untouched by both.
    ///
    /// - Complexity: O(h log h), where h is the highest index mentioned by either change.
    public func followed(by next: CollectionChange) -> CollectionChange {
        if isEmpty { return next }
        if next.isEmpty { return self }
        // Work on a prefix of B long enough to hold every index either change mentions, on
        // either side; past it both changes are the identity (shifted by the count deltas).
        let bound = Swift.max(
            highestNewIndex + 1,
            highestOldIndex + 1 + countDelta,
            next.highestOldIndex + 1,
            next.highestNewIndex + 1 - next.countDelta,
            0)
        let countA = bound - countDelta
        let countC = bound + next.countDelta
        let first = indexMapping(oldCount: countA, newCount: bound)
        let second = next.indexMapping(oldCount: bound, newCount: countC)

        var newToOld = [Int](repeating: -1, count: countC)
        var isModified = [Bool](repeating: false, count: countC)
        for index in 0..<countC {
            let middle = second.newToOld[index]
            guard middle >= 0 else { continue }
            let source = first.newToOld[middle]
            guard source >= 0 else { continue }
            newToOld[index] = source
            isModified[index] = first.isModified[middle] || second.isModified[index]
        }
        var builder = ChangeBuilder()
        builder.addWindow(newToOld: newToOld, isModified: isModified, newStart: 0, oldRange: 0..<countA)
        return builder.build()
    }

    /// The highest index in the old snapshot this change mentions, or -1.
    var highestOldIndex: Int {
        Swift.max(
            deletions.last ?? -1, modifications.last ?? -1,
            moves.lazy.map(\.from).max() ?? -1)
    }

    /// The highest index in the new snapshot this change mentions, or -1.
    var highestNewIndex: Int {
        Swift.max(insertions.last ?? -1, modificationsInNew.last ?? -1, moves.last?.to ?? -1)
    }
}
