/// Builds a ``CollectionChange`` from a matching between new and old positions.
///
/// Both the diff (which matches by id) and composition (which chains two matchings) end here, so
/// the rules that make a change valid and its moves minimal live in one place:
/// matched elements on a longest increasing run of old indices stay put (and are modifications
/// if their content changed); all other matched elements are moves; unmatched new positions are
/// insertions and unmatched old positions deletions.
@usableFromInline
struct ChangeBuilder {
    @usableFromInline private(set) var deletions: [Int] = []
    @usableFromInline private(set) var insertions: [Int] = []
    @usableFromInline private(set) var modifications: [Int] = []
    @usableFromInline private(set) var modificationsInNew: [Int] = []
    @usableFromInline private(set) var moves: [CollectionChange.Move] = []

    @usableFromInline
    init() {}

    /// Records an element that kept its place; a modification if `isModified`.
    /// Calls must come in ascending index order.
    @inlinable
    mutating func keep(old: Int, new: Int, isModified: Bool) {
        if isModified {
            modifications.append(old)
            modificationsInNew.append(new)
        }
    }

    /// Adds the changes of a window where `newToOld[k]` is the old index matched with new index
    /// `newStart + k` (or -1 when the element is new), `oldRange` holds every old index of the
    /// window, and `isModified[k]` tells whether a matched element's content changed.
    /// Windows must be added in ascending order.
    ///
    /// - Complexity: O(n log n) in the window's size.
    @usableFromInline
    mutating func addWindow(
        newToOld: [Int], isModified: [Bool], newStart: Int, oldRange: Range<Int>
    ) {
        let onRun = LongestIncreasingSubsequence.membership(of: newToOld)
        var oldMatched = [Bool](repeating: false, count: oldRange.count)
        for k in 0..<newToOld.count {
            let old = newToOld[k]
            let new = newStart + k
            if old < 0 {
                insertions.append(new)
                continue
            }
            oldMatched[old - oldRange.lowerBound] = true
            if onRun[k] {
                keep(old: old, new: new, isModified: isModified[k])
            } else {
                moves.append(CollectionChange.Move(from: old, to: new, isModified: isModified[k]))
            }
        }
        for offset in 0..<oldMatched.count where !oldMatched[offset] {
            deletions.append(oldRange.lowerBound + offset)
        }
    }

    /// The finished change.
    @usableFromInline
    func build() -> CollectionChange {
        CollectionChange(
            sortedDeletions: deletions, sortedInsertions: insertions,
            sortedModifications: modifications, sortedModificationsInNew: modificationsInNew,
            movesSortedByTarget: moves)
    }
}
