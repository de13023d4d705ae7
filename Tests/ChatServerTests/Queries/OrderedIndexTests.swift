import Testing
import TestSupport

@testable import ChatServer

@Suite struct OrderedIndexTests {
    /// A reference entry: the index's order is key, then id.
    private struct Item: Hashable, Comparable {
        var key: Int
        var id: String

        static func < (lhs: Item, rhs: Item) -> Bool { (lhs.key, lhs.id) < (rhs.key, rhs.id) }
    }

    /// Random inserts, removes and moves (with many equal keys, enough entries to split and
    /// merge chunks) keep the index equal to a sorted array, with chunks within their bounds.
    @Test func randomOperationsMatchASortedArray() {
        let seed = SeededGenerator.testSeed(0x5EED_0040)
        var random = SeededGenerator(seed: seed)
        var index = OrderedIndex<Int>()
        var reference: [String: Int] = [:]  // id → key
        let maximum = OrderedIndex<Int>.maximumChunkSize
        for step in 0..<30_000 {
            // Grow to a few thousand entries, shrink, grow again, shrink.
            let growing = (step / 7_500) % 2 == 0
            let key = Int.random(in: 0..<200, using: &random)
            let id = "e\(Int.random(in: 0..<4_000, using: &random))"
            let choice = Int.random(in: 0..<10, using: &random)
            if choice < (growing ? 5 : 1) {
                // Ids are unique: a known id moves instead.
                guard reference[id] == nil else { continue }
                let inserted = index.insert(key: key, id: id)
                let insertedAgain = index.insert(key: key, id: id)
                #expect(inserted && !insertedAgain, "seed \(seed)")
                reference[id] = key
            } else if choice == 5 || choice == 6 {
                guard let (old, oldKey) = reference.randomElement(using: &random) else { continue }
                index.move(id: old, from: oldKey, to: key)
                reference[old] = key
            } else {
                // While growing, half the removals name an absent entry.
                let victim =
                    !growing || Bool.random(using: &random)
                    ? reference.randomElement(using: &random).map { Item(key: $0.value, id: $0.key) } : nil
                let target = victim ?? Item(key: key, id: id)
                let present = reference[target.id] == target.key
                let removed = index.remove(key: target.key, id: target.id)
                #expect(removed == present, "seed \(seed)")
                if present { reference[target.id] = nil }
            }
            #expect(index.count == reference.count, "seed \(seed)")
            if step % 1_000 == 0 || step == 29_999 {
                let sorted = reference.map { Item(key: $0.value, id: $0.key) }.sorted()
                let inOrder = index.entries.map { Item(key: $0.key, id: $0.id) } == sorted
                #expect(inOrder, "seed \(seed), step \(step)")
                #expect(index.chunks.allSatisfy { !$0.isEmpty && $0.count <= maximum }, "seed \(seed)")
                let fenced =
                    index.fences.map { Item(key: $0.key, id: $0.id) }
                    == index.chunks.map { Item(key: $0.last!.key, id: $0.last!.id) }
                #expect(fenced, "seed \(seed), step \(step)")
                if index.chunks.count > 1 {
                    #expect(index.chunks.allSatisfy { $0.count >= maximum / 4 }, "seed \(seed), step \(step)")
                }
                if let first = sorted.first {
                    #expect(index.contains(key: first.key, id: first.id), "seed \(seed)")
                    #expect(!index.contains(key: first.key, id: first.id + "x"), "seed \(seed)")
                }
            }
        }
    }

    /// Moves by small steps (most keep the entry's place, some pass a neighbour, some land on
    /// a neighbour's key) and a hot entry moving to the end again and again (a busy channel's
    /// newest message) keep the index equal to a sorted array, fences included.
    @Test func smallMovesInPlaceKeepTheOrderAndTheFences() {
        let seed = SeededGenerator.testSeed(0x5EED_0042)
        var random = SeededGenerator(seed: seed)
        var index = OrderedIndex<Int>()
        var reference: [String: Int] = [:]
        for number in 0..<2_000 {
            let key = number * 4
            index.insert(key: key, id: "e\(number)")
            reference["e\(number)"] = key
        }
        var newest = 8_000
        for step in 0..<20_000 {
            let id: String
            let key: Int
            if step % 3 == 0 {
                id = "e\(Int.random(in: 0..<10, using: &random))"
                newest += 1
                key = newest
            } else {
                id = "e\(Int.random(in: 0..<2_000, using: &random))"
                key = reference[id]! + Int.random(in: -6...6, using: &random)
            }
            index.move(id: id, from: reference[id]!, to: key)
            reference[id] = key
            if step % 500 == 0 || step == 19_999 {
                let sorted = reference.map { Item(key: $0.value, id: $0.key) }.sorted()
                #expect(index.entries.map { Item(key: $0.key, id: $0.id) } == sorted, "seed \(seed), step \(step)")
                let fenced =
                    index.fences.map { Item(key: $0.key, id: $0.id) }
                    == index.chunks.map { Item(key: $0.last!.key, id: $0.last!.id) }
                #expect(fenced, "seed \(seed), step \(step)")
                #expect(index.count == reference.count, "seed \(seed)")
            }
        }
    }

    /// Walks in either key direction (ids ascending within a key) from any start visit exactly
    /// the entries after the start in that order, and stop when asked.
    @Test func walksFollowTheQueryOrderFromAnyStart() {
        let seed = SeededGenerator.testSeed(0x5EED_0041)
        var random = SeededGenerator(seed: seed)
        var index = OrderedIndex<Int>()
        var reference: [Item] = []
        for number in 0..<3_000 {
            let item = Item(key: Int.random(in: 0..<60, using: &random), id: "e\(number)")
            index.insert(key: item.key, id: item.id)
            reference.append(item)
        }
        for ascending in [true, false] {
            let order = reference.sorted { a, b in
                a.key != b.key ? (a.key < b.key) == ascending : a.id < b.id
            }
            for _ in 0..<40 {
                // A start that is an entry, or a position between or beyond entries.
                let start: Item? =
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: nil
                    case 1: order.randomElement(using: &random)
                    default:
                        Item(
                            key: Int.random(in: -1...61, using: &random),
                            id: "e\(Int.random(in: 0..<3_000, using: &random))x")
                    }
                let expected = order.filter { item in
                    guard let start else { return true }
                    return item.key != start.key ? (item.key > start.key) == ascending : item.id > start.id
                }
                let limit = Int.random(in: 1...4_000, using: &random)
                var visited: [Item] = []
                index.forEach(keysAscending: ascending, after: start.map { ($0.key, $0.id) }) { entry in
                    visited.append(Item(key: entry.key, id: entry.id))
                    return visited.count < limit
                }
                let same = visited == Array(expected.prefix(limit))
                #expect(same, "seed \(seed), ascending \(ascending), start \(String(describing: start))")
            }
        }
    }
}
