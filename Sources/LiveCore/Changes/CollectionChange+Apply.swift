extension CollectionChange {
    /// Whether this change can describe a transition from a snapshot of `oldCount` elements to
    /// one of `newCount` elements: every index in range, no index used twice on either side,
    /// the sizes consistent, and each modification's old and new index designating the same
    /// element.
    ///
    /// - Complexity: O(oldCount + newCount).
    public func isValid(oldCount: Int, newCount: Int) -> Bool {
        guard oldCount >= 0, newCount >= 0,
            oldCount - deletions.count == newCount - insertions.count,
            modifications.count == modificationsInNew.count
        else { return false }
        var oldUsed = [Bool](repeating: false, count: oldCount)
        var newUsed = [Bool](repeating: false, count: newCount)
        func claim(_ index: Int, _ used: inout [Bool]) -> Bool {
            guard index >= 0, index < used.count, !used[index] else { return false }
            used[index] = true
            return true
        }
        for index in deletions where !claim(index, &oldUsed) { return false }
        for index in modifications where !claim(index, &oldUsed) { return false }
        for move in moves where !claim(move.from, &oldUsed) { return false }
        for index in insertions where !claim(index, &newUsed) { return false }
        for index in modificationsInNew where !claim(index, &newUsed) { return false }
        for move in moves where !claim(move.to, &newUsed) { return false }
        // Each modification must pair the k-th stayer on both sides.
        let mapping = indexMapping(oldCount: oldCount, newCount: newCount)
        for (old, new) in zip(modifications, modificationsInNew) where mapping.newToOld[new] != old {
            return false
        }
        return true
    }

    /// Applies the change to `old`, taking the content of inserted and modified elements (and of
    /// moves marked `isModified`) from `new`, and everything else from `old`.
    ///
    /// This is exactly what a UIKit batch update does: remove deletions and move sources, insert
    /// insertions and move targets, then reload modifications. Applying the change from
    /// `CollectionChange(from: old, to: new)` returns an array equal to `new`.
    ///
    /// - Precondition: `isValid(oldCount: old.count, newCount: new.count)`.
    /// - Complexity: O(old.count + new.count).
    public func applying<Element>(to old: [Element], new: [Element]) -> [Element] {
        precondition(
            isValid(oldCount: old.count, newCount: new.count),
            "\(self) does not fit snapshots of \(old.count) and \(new.count) elements")
        let mapping = indexMapping(oldCount: old.count, newCount: new.count)
        var result: [Element] = []
        result.reserveCapacity(new.count)
        for index in 0..<new.count {
            let source = mapping.newToOld[index]
            result.append(source < 0 || mapping.isModified[index] ? new[index] : old[source])
        }
        return result
    }

    /// The positions of the old snapshot that each new position comes from (-1 for insertions),
    /// and whether its content changed, following UIKit's batch-update semantics: new positions
    /// not taken by insertions or move targets are filled, in order, by old elements that were
    /// neither deleted nor moved.
    ///
    /// - Complexity: O(oldCount + newCount).
    func indexMapping(oldCount: Int, newCount: Int) -> (newToOld: [Int], isModified: [Bool]) {
        var newToOld = [Int](repeating: -1, count: newCount)
        var isModified = [Bool](repeating: false, count: newCount)
        var takenNew = [Bool](repeating: false, count: newCount)
        var leftOld = [Bool](repeating: false, count: oldCount)
        for index in insertions { takenNew[index] = true }
        for move in moves {
            takenNew[move.to] = true
            newToOld[move.to] = move.from
            isModified[move.to] = move.isModified
            leftOld[move.from] = true
        }
        for index in deletions { leftOld[index] = true }
        for index in modificationsInNew { isModified[index] = true }
        var old = 0
        for new in 0..<newCount where !takenNew[new] {
            while old < oldCount && leftOld[old] { old += 1 }
            guard old < oldCount else { break }
            newToOld[new] = old
            old += 1
        }
        return (newToOld, isModified)
    }
}
