extension CollectionChange {
    /// The number of index entries the change holds (deletions, insertions, modifications and
    /// moves). O(1).
    var entryCount: Int {
        storage.deletions.count + storage.insertions.count + storage.modifications.count + storage.moves.count
    }

    /// The single change equivalent to this change (A → B) followed by `next` (B → C).
    ///
    /// Elements are followed through both changes; the unmoved ones of the result are a
    /// heaviest increasing run of the survivors (so the result has the fewest moves for that
    /// element correspondence, given that elements past every index either change mentions stay
    /// put) and the rest move. An element modified by either change is modified in the result
    /// (even if the second change restored its content: a redundant reload is harmless, a missed
    /// one is not). Applying the result to A yields C.
    ///
    /// Snapshot sizes are not needed, and the work does not depend on them: elements neither
    /// change mentions are handled as runs, by arithmetic on the mentioned indices.
    ///
    /// - Complexity: O(k log k), where k is the number of indices the two changes mention.
    public func followed(by next: CollectionChange) -> CollectionChange {
        if isEmpty { return next }
        if next.isEmpty { return self }
        return ChangeComposition(self, next).result()
    }
}

/// The work of ``CollectionChange/followed(by:)``: A → B (`first`) then B → C (`second`).
///
/// Every element of B that either change mentions (on B's side) is followed individually: back
/// to A through `first`, forward to C through `second`. Every other element of B is untouched by
/// both; those form runs that keep their order, and their positions in A and C follow from
/// counting the mentioned indices below them. Runs are cut wherever a mentioned element's
/// position in A or C falls inside them, so that each run and each followed element occupy
/// disjoint ranges on both sides; a heaviest increasing subsequence over these items (a run
/// weighs its length) decides what stays put.
struct ChangeComposition {
    /// `first`'s A-side indices that leave A's stable order (deletions and move sources) and
    /// B-side indices that enter B's (insertions and move targets), sorted; likewise `second`.
    private let leftA, enteredB, leftB, enteredC: [Int]
    private let first: CollectionChange
    private let second: CollectionChange

    init(_ first: CollectionChange, _ second: CollectionChange) {
        self.first = first
        self.second = second
        leftA = (first.deletions + first.moves.map(\.from)).sorted()
        enteredB = (first.insertions + first.moves.map(\.to)).sorted()
        leftB = (second.deletions + second.moves.map(\.from)).sorted()
        enteredC = (second.insertions + second.moves.map(\.to)).sorted()
    }

    /// One thing that survives from A to C: a followed element or a run of untouched ones.
    private struct Item {
        var a: Int
        var c: Int
        /// Elements it stands for (1 for a followed element).
        var weight: Int
        var isRun: Bool
        var isModified: Bool
    }

    func result() -> CollectionChange {
        // Origins in A of B's elements mentioned by `first`, and destinations in C of those
        // mentioned by `second`.
        var origin: [Int: (a: Int, modified: Bool)] = [:]
        var inserted: Set<Int> = []
        for index in first.insertions { inserted.insert(index) }
        for (a, b) in zip(first.modifications, first.modificationsInNew) { origin[b] = (a, true) }
        for move in first.moves { origin[move.to] = (move.from, move.isModified) }
        var destination: [Int: (c: Int, modified: Bool)] = [:]
        var deleted: Set<Int> = []
        for index in second.deletions { deleted.insert(index) }
        for (b, c) in zip(second.modifications, second.modificationsInNew) { destination[b] = (c, true) }
        for move in second.moves { destination[move.from] = (move.to, move.isModified) }

        var mentioned = Array(Set(first.insertions).union(origin.keys).union(deleted).union(destination.keys))
        mentioned.sort()

        var deletions = first.deletions
        var insertions = second.insertions
        var items: [Item] = []
        items.reserveCapacity(mentioned.count * 3 + 1)
        var previous = -1
        for b in mentioned {
            addRuns(from: previous + 1, to: b, into: &items)
            previous = b
            let from: (a: Int, modified: Bool)?
            if inserted.contains(b) {
                from = nil
            } else {
                from = origin[b] ?? (Self.select(b - Self.countBelow(b, in: enteredB), notIn: leftA), false)
            }
            let to: (c: Int, modified: Bool)?
            if deleted.contains(b) {
                to = nil
            } else {
                to = destination[b] ?? (Self.select(b - Self.countBelow(b, in: leftB), notIn: enteredC), false)
            }
            switch (from, to) {
            case (nil, nil): break
            case (nil, let to?): insertions.append(to.c)
            case (let from?, nil): deletions.append(from.a)
            case (let from?, let to?):
                items.append(
                    Item(a: from.a, c: to.c, weight: 1, isRun: false, isModified: from.modified || to.modified))
            }
        }
        addRuns(from: previous + 1, to: nil, into: &items)
        return build(items: items, deletions: deletions, insertions: insertions)
    }

    /// Appends the runs of untouched B elements `lower..<upper` (`upper == nil`: to the end of B,
    /// whatever its size), cut where a position of A or C left or entered by a change falls
    /// inside them.
    private func addRuns(from lower: Int, to upper: Int?, into items: inout [Item]) {
        if let upper, lower >= upper { return }
        let rankA = lower - Self.countBelow(lower, in: enteredB)
        let rankC = lower - Self.countBelow(lower, in: leftB)
        let startA = Self.select(rankA, notIn: leftA)
        let startC = Self.select(rankC, notIn: enteredC)
        let end = upper.map { $0 - lower }  // offsets within the run: 0..<end
        // Offsets where the A or C positions jump over a changed position.
        var cuts: [Int] = []
        for position in leftA[Self.countBelow(startA, in: leftA)...] {
            let offset = position - Self.countBelow(position, in: leftA) - rankA
            if let end, offset >= end { break }
            cuts.append(offset)
        }
        for position in enteredC[Self.countBelow(startC, in: enteredC)...] {
            let offset = position - Self.countBelow(position, in: enteredC) - rankC
            if let end, offset >= end { break }
            cuts.append(offset)
        }
        cuts.sort()
        var start = 0
        for cut in cuts + [end ?? Int.max] where cut > start {
            let a = Self.select(rankA + start, notIn: leftA)
            let c = Self.select(rankC + start, notIn: enteredC)
            // The open-ended last run weighs more than everything else: it stays put.
            let weight = cut == Int.max ? Int.max / 4 : cut - start
            items.append(Item(a: a, c: c, weight: weight, isRun: true, isModified: false))
            start = cut
        }
    }

    /// The change from the survivors: a heaviest run increasing in both A and C stays; the
    /// rest moves.
    private func build(items unsorted: [Item], deletions: [Int], insertions: [Int]) -> CollectionChange {
        let items = unsorted.sorted { $0.a < $1.a }
        let stays = Self.heaviestIncreasing(items.map(\.c), weights: items.map(\.weight))
        var modifications: [(a: Int, c: Int)] = []
        var moves: [CollectionChange.Move] = []
        for (index, item) in items.enumerated() {
            if stays[index] {
                if item.isModified { modifications.append((item.a, item.c)) }
            } else if item.isRun {
                for offset in 0..<item.weight {
                    moves.append(CollectionChange.Move(from: item.a + offset, to: item.c + offset))
                }
            } else {
                moves.append(CollectionChange.Move(from: item.a, to: item.c, isModified: item.isModified))
            }
        }
        // Kept items increase in both A and C, so the modifications are sorted on both sides.
        return CollectionChange(
            sortedDeletions: deletions.sorted(), sortedInsertions: insertions.sorted(),
            sortedModifications: modifications.map(\.a), sortedModificationsInNew: modifications.map(\.c),
            movesSortedByTarget: moves.sorted { $0.to < $1.to })
    }

    /// Which entries belong to a heaviest strictly increasing subsequence of `values` (distinct).
    /// - Complexity: O(m log m) with a Fenwick tree of prefix maxima over the values' ranks.
    static func heaviestIncreasing(_ values: [Int], weights: [Int]) -> [Bool] {
        let count = values.count
        guard count > 0 else { return [] }
        let ranks = values.indices.sorted { values[$0] < values[$1] }
        var rankOf = [Int](repeating: 0, count: count)
        for (rank, index) in ranks.enumerated() { rankOf[index] = rank + 1 }
        // tree[i]: the best (total, entry) over a range of ranks ending at i.
        var tree = [(total: Int, entry: Int)](repeating: (0, -1), count: count + 1)
        var best = [Int](repeating: 0, count: count)
        var predecessor = [Int](repeating: -1, count: count)
        for index in 0..<count {
            var position = rankOf[index] - 1
            var prefix = (total: 0, entry: -1)
            while position > 0 {
                if tree[position].total > prefix.total { prefix = tree[position] }
                position -= position & -position
            }
            best[index] = prefix.total + weights[index]
            predecessor[index] = prefix.entry
            position = rankOf[index]
            while position <= count {
                if best[index] > tree[position].total { tree[position] = (best[index], index) }
                position += position & -position
            }
        }
        var membership = [Bool](repeating: false, count: count)
        var entry = best.indices.max { best[$0] < best[$1] } ?? -1
        while entry >= 0 {
            membership[entry] = true
            entry = predecessor[entry]
        }
        return membership
    }

    /// How many entries of `sorted` are below `value`. O(log n).
    static func countBelow(_ value: Int, in sorted: [Int]) -> Int {
        sorted.partitioningIndex { $0 >= value }
    }

    /// The `rank`-th (from 0) non-negative integer not in `sorted`. O(log n).
    static func select(_ rank: Int, notIn sorted: [Int]) -> Int {
        // sorted[i] - i never decreases; the entries below the answer are those where it is
        // at most `rank`.
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] - mid <= rank { low = mid + 1 } else { high = mid }
        }
        return rank + low
    }
}
