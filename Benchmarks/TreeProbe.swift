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
            print("tree of \(count) Ints: remove + insert with a snapshot held: \(Harness.format(seconds / Double(steps))); search: \(Harness.format(search / Double(steps)))")
        }
    }
}
