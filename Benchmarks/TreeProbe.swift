import ChatAPI
import Foundation
import LiveCore
import TestSupport

/// `Benchmarks core.tree`: the persistent array's own costs (a probe, not a README figure).
enum TreeProbe {
    final class Holder { let tree: PersistentArray<Int>; init(_ tree: PersistentArray<Int>) { self.tree = tree } }

    static func run() {
        for count in [1_000, 100_000] {
            var generator = SeededGenerator(seed: 5)
            var tree = PersistentArray(0..<count)
            var held = Holder(tree)
            let steps = 200_000
            let seconds = Harness.once {
                for _ in 0..<steps {
                    held = Holder(tree)  // a published snapshot shares the tree
                    let value = tree.remove(at: Int.random(in: 0..<count, using: &generator))
                    tree.insert(value, at: Int.random(in: 0..<count, using: &generator))
                }
            }
            blackHole(held.tree.count)
            let search = Harness.once {
                for _ in 0..<steps {
                    let probe = Int.random(in: 0..<count, using: &generator)
                    blackHole(tree.partitioningIndex { $0 >= probe })
                }
            }
            // Baselines, the same run: a standard Array with the same snapshot held (each change
            // copies it), fewer steps where a copy is large; a binary search over a plain Array.
            var array = Array(0..<count)
            var heldArray = array
            let arraySteps = count >= 100_000 ? 2_000 : steps
            let arraySeconds = Harness.once {
                for _ in 0..<arraySteps {
                    heldArray = array
                    let value = array.remove(at: Int.random(in: 0..<count, using: &generator))
                    array.insert(value, at: Int.random(in: 0..<count, using: &generator))
                }
            }
            blackHole(heldArray.count)
            let sorted = Array(0..<count)
            let arraySearch = Harness.once {
                for _ in 0..<steps {
                    let probe = Int.random(in: 0..<count, using: &generator)
                    var low = 0
                    var high = sorted.count
                    while low < high {
                        let middle = (low + high) / 2
                        if sorted[middle] >= probe { high = middle } else { low = middle + 1 }
                    }
                    blackHole(low)
                }
            }
            print(
                "tree of \(count) Ints: remove + insert with a snapshot held: \(Harness.format(seconds / Double(steps))) (baseline, an Array: \(Harness.format(arraySeconds / Double(arraySteps)))); search: \(Harness.format(search / Double(steps))) (baseline, binary search of an Array: \(Harness.format(arraySearch / Double(steps))))"
            )
        }
    }
}
