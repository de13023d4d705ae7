import LiveCore
import TestSupport

/// Independent checks of a change, written without the library's own mapping code.
enum ChangeOracle {
    /// Replays `change` the way UIKit performs a batch update — delete (deletions and move
    /// sources) from the highest index down, then insert (insertions and move targets) from the
    /// lowest up, then reload modifications — taking new content from `new` only where the change
    /// says the content is new.
    static func replay(_ change: CollectionChange, old: [Item], new: [Item]) -> [Item]? {
        var removals = change.deletions.map { ($0, false) } + change.moves.map { ($0.from, true) }
        removals.sort { $0.0 > $1.0 }
        var working = old
        for (index, _) in removals {
            guard working.indices.contains(index) else { return nil }
            working.remove(at: index)
        }
        var additions: [(Int, Item)] = change.insertions.map { ($0, new[$0]) }
        for move in change.moves {
            guard old.indices.contains(move.from), new.indices.contains(move.to) else { return nil }
            additions.append((move.to, move.isModified ? new[move.to] : old[move.from]))
        }
        additions.sort { $0.0 < $1.0 }
        for (index, item) in additions {
            guard index <= working.count else { return nil }
            working.insert(item, at: index)
        }
        for index in change.modificationsInNew {
            guard working.indices.contains(index) else { return nil }
            working[index] = new[index]
        }
        return working
    }

    /// The length of a longest strictly increasing subsequence, by the quadratic textbook
    /// dynamic program.
    static func lisLength(_ values: [Int]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        var result = 0
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] && best[j] + 1 > best[i] {
                best[i] = best[j] + 1
            }
            result = max(result, best[i])
        }
        return result
    }

    /// The fewest moves any correct change from `old` to `new` can have, for unique ids:
    /// matched elements minus a longest run of them that kept their relative order.
    static func minimalMoves(old: [Item], new: [Item]) -> Int {
        var oldIndex: [Int: Int] = [:]
        for (index, item) in old.enumerated() { oldIndex[item.id] = index }
        let matched = new.compactMap { oldIndex[$0.id] }
        return matched.count - lisLength(matched)
    }
}
