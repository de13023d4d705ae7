/// Random old/new array pairs for diff property tests and benchmarks.
public enum ChangeScenario {
    /// Makes a new array from `old` by deleting, modifying, moving and inserting elements, each
    /// with probability `rate`. Moved and modified elements are disjoint only if `disjoint` is set;
    /// otherwise some elements are both moved and modified.
    ///
    /// - Parameters:
    ///   - nextId: the first id to use for inserted elements; advanced past the ids used.
    public static func mutate(
        _ old: [Item], rate: Double, disjoint: Bool = false, nextId: inout Int,
        using generator: inout SeededGenerator
    ) -> [Item] {
        var new: [Item] = []
        var moved: [Item] = []
        new.reserveCapacity(old.count + old.count / 5 + 1)
        for var item in old {
            if Double.random(in: 0..<1, using: &generator) < rate { continue }  // deleted
            let modify = Double.random(in: 0..<1, using: &generator) < rate
            let move = Double.random(in: 0..<1, using: &generator) < rate
            if modify && !(move && disjoint) { item.value &+= 1 }
            if move { moved.append(item) } else { new.append(item) }
        }
        for item in moved {
            new.insert(item, at: Int.random(in: 0...new.count, using: &generator))
        }
        let insertions =
            Int((Double(old.count) * rate).rounded())
            + (Double.random(in: 0..<1, using: &generator) < rate ? 1 : 0)
        for _ in 0..<insertions {
            new.insert(Item(id: nextId, value: 0), at: Int.random(in: 0...new.count, using: &generator))
            nextId += 1
        }
        return new
    }

    /// `count` items with ids `0..<count` in a random order (or, with `duplicateIds`, ids drawn
    /// from a small range so that many repeat), values random.
    public static func items(
        count: Int, duplicateIds: Bool = false, using generator: inout SeededGenerator
    ) -> [Item] {
        if duplicateIds {
            let range = max(1, count / 3)
            return (0..<count).map { _ in
                Item(id: Int.random(in: 0..<range, using: &generator), value: Int.random(in: 0..<3, using: &generator))
            }
        }
        return (0..<count).shuffled(using: &generator).map {
            Item(id: $0, value: Int.random(in: 0..<1000, using: &generator))
        }
    }

    /// The fewest moves any correct change from `old` to `new` can have when ids are unique:
    /// matched elements minus a longest increasing run of their old indices (patience sorting,
    /// written independently of the library's diff).
    public static func minimalMoves(old: [Item], new: [Item]) -> Int {
        var oldIndex: [Int: Int] = [:]
        for (index, item) in old.enumerated() { oldIndex[item.id] = index }
        var tails: [Int] = []
        var matched = 0
        for item in new {
            guard let value = oldIndex[item.id] else { continue }
            matched += 1
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if tails[mid] < value { low = mid + 1 } else { high = mid }
            }
            if low == tails.count { tails.append(value) } else { tails[low] = value }
        }
        return matched - tails.count
    }
}
