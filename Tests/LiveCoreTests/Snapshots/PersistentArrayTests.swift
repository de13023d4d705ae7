@testable import LiveCore
import TestSupport
import Testing

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
            }
            #expect(tree.array == model, "seed \(seed)")
            #expect(tree.count == model.count, "seed \(seed)")
            #expect(tree.isBalanced, "seed \(seed)")
            for index in stride(from: 0, to: model.count, by: 7) { #expect(tree[index] == model[index], "seed \(seed)") }
            for (copy, expected) in copies { #expect(copy.array == expected, "seed \(seed): a copy changed") }
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

    @Test func buildsFromASequenceOfAnySize() {
        for count in [0, 1, 15, 16, 47, 48, 49, 1_000, 40_000] {
            let tree = PersistentArray(0..<count)
            #expect(tree.count == count && tree.array == Array(0..<count) && tree.isBalanced, "count \(count)")
        }
    }
}
