import TestSupport
import Testing

@testable import LiveCore

@Suite struct PersistentArrayTests {
    /// Random inserts, removals and replacements against an array, with copies taken along the
    /// way that must never change afterwards (structure is shared, never mutated).
    @Test func behavesLikeAnArrayAndCopiesNeverChange() {
        for seed in UInt64(1)...60 {
            var generator = SeededGenerator(seed: seed)
            var tree = PersistentArray<Int>()
            var model: [Int] = []
            var copies: [(PersistentArray<Int>, [Int])] = []
            let steps = Int.random(in: 100...3_000, using: &generator)
            for step in 0..<steps {
                let roll = Int.random(in: 0..<10, using: &generator)
                if roll < 5 || model.isEmpty {
                    let index = Int.random(in: 0...model.count, using: &generator)
                    tree.insert(step, at: index)
                    model.insert(step, at: index)
                } else if roll < 8 {
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    #expect(tree.remove(at: index) == model.remove(at: index), "seed \(seed)")
                } else {
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    tree[index] = -step
                    model[index] = -step
                }
                if step % 97 == 0 { copies.append((tree, model)) }
                if step % 211 == 0 { #expect(tree.isBalanced, "seed \(seed), step \(step)") }
            }
            #expect(tree.array == model, "seed \(seed)")
            #expect(tree.count == model.count, "seed \(seed)")
            #expect(tree.isBalanced, "seed \(seed)")
            for index in stride(from: 0, to: model.count, by: 7) {
                #expect(tree[index] == model[index], "seed \(seed)")
            }
            for (copy, expected) in copies {
                #expect(copy.array == expected, "seed \(seed): a copy changed")
            }
        }
    }

    @Test func drainsToEmptyAndRefills() {
        var tree = PersistentArray(0..<5_000)
        #expect(tree.isBalanced)
        let copy = tree
        while !tree.isEmpty { tree.remove(at: tree.count / 2) }
        #expect(tree.isBalanced && tree.array.isEmpty && tree.first == nil && tree.last == nil)
        tree.append(1)
        #expect(tree.array == [1])
        #expect(copy.array == Array(0..<5_000) && copy.first == 0 && copy.last == 4_999)
    }

    @Test func partitioningIndexFindsTheBoundary() {
        let tree = PersistentArray(stride(from: 0, to: 20_000, by: 2))
        for probe in [-1, 0, 1, 2, 999, 1_000, 19_998, 19_999, 25_000] {
            let expected = Array(stride(from: 0, to: 20_000, by: 2)).firstIndex { $0 >= probe } ?? 10_000
            #expect(tree.partitioningIndex { $0 >= probe } == expected, "probe \(probe)")
        }
        #expect(PersistentArray<Int>().partitioningIndex { $0 > 0 } == 0)
    }

    /// A sorted tree kept sorted through random inserts and removals (snapshots held, so paths
    /// are copied): every search agrees with the array's, which needs each node's last element
    /// to stay right through splits, merges and removals at the ends.
    @Test func searchesStayRightWhileTheTreeChanges() {
        for seed in UInt64(1)...20 {
            var generator = SeededGenerator(seed: seed)
            var tree = PersistentArray<Int>()
            var model: [Int] = []
            var held: [PersistentArray<Int>] = []
            for step in 0..<4_000 {
                if Int.random(in: 0..<10, using: &generator) < 6 || model.isEmpty {
                    let value = Int.random(in: 0..<10_000, using: &generator)
                    let index = model.firstIndex { $0 >= value } ?? model.count
                    tree.insert(value, at: index)
                    model.insert(value, at: index)
                } else {
                    // Removals favour the ends, where a node's last element changes.
                    let index =
                        Bool.random(using: &generator)
                        ? model.count - 1 : Int.random(in: 0..<model.count, using: &generator)
                    tree.remove(at: index)
                    model.remove(at: index)
                }
                if step % 13 == 0 { held.append(tree) }
                let probe = Int.random(in: -1...10_001, using: &generator)
                let expected = model.firstIndex { $0 >= probe } ?? model.count
                #expect(
                    tree.partitioningIndex { $0 >= probe } == expected,
                    "seed \(seed), step \(step), probe \(probe)")
                if step % 101 == 0 {
                    #expect(tree.isBalanced && tree.last == model.last, "seed \(seed), step \(step)")
                }
            }
            #expect(held.count > 0 && tree.array == model, "seed \(seed)")
        }
    }

    @Test func buildsFromASequenceOfAnySize() {
        for count in [0, 1, 15, 16, 47, 48, 49, 1_000, 40_000] {
            let tree = PersistentArray(0..<count)
            #expect(
                tree.count == count && tree.array == Array(0..<count) && tree.isBalanced, "count \(count)")
        }
    }
}
