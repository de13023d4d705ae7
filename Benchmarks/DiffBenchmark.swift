import LiveCore
import TestSupport

/// `Benchmarks diff`: our diff against the floor (building an id → index table for both
/// arrays) and against the standard library's `difference(from:).inferringMoves()`.
enum DiffBenchmark {
    /// The longest the standard library's diff may be predicted to take for it to run (seconds).
    static let stdlibBudget = 5.0

    static func run() {
        print("## diff — 10% deleted, 10% inserted, 10% moved, 10% modified (seeded)\n")
        var rows: [[String]] = []
        var stdlibPerSquare: Double?
        for n in [1_000, 10_000, 100_000] {
            var generator = SeededGenerator(seed: UInt64(n))
            let old = ChangeScenario.items(count: n, using: &generator)
            var nextId = n
            let new = ChangeScenario.mutate(old, rate: 0.1, disjoint: true, nextId: &nextId, using: &generator)

            var change = CollectionChange.empty
            let ours = Harness.median(runs: n >= 100_000 ? 5 : 9) {
                change = CollectionChange(from: old, to: new)
            }
            let floor = Harness.median(runs: n >= 100_000 ? 5 : 9) {
                var oldTable = [Int: Int](minimumCapacity: old.count)
                for (index, item) in old.enumerated() { oldTable[item.id] = index }
                var newTable = [Int: Int](minimumCapacity: new.count)
                for (index, item) in new.enumerated() { newTable[item.id] = index }
                blackHole((oldTable, newTable))
            }
            let trueMoves = ChangeScenario.minimalMoves(old: old, new: new)

            // The standard library's diff is quadratic here (Myers: O((n + d) · d), d ∝ n): it is
            // run only while its time predicted from the last size stays within a budget, so
            // the 100,000-row run (30–40 s) is skipped every time and shown as an estimate.
            var stdlib: Double?
            let estimate = stdlibPerSquare.map { $0 * Double(n) * Double(n) }
            if let estimate, estimate > stdlibBudget {
                stdlib = nil
            } else {
                stdlib = Harness.median(runs: n >= 10_000 ? 1 : 3, warmUp: n < 10_000) {
                    blackHole(new.difference(from: old).inferringMoves())
                }
                stdlibPerSquare = stdlib! / (Double(n) * Double(n))
            }
            rows.append([
                "\(n)", Harness.format(ours), Harness.format(floor), Harness.ratio(ours / floor),
                stdlib.map(Harness.format) ?? "skipped (est. \(Harness.format(estimate ?? 0)))",
                stdlib.map { Harness.ratio($0 / ours) } ?? "est. \(Harness.ratio((estimate ?? 0) / ours))",
                "\(change.moves.count) / \(trueMoves)",
                change.applying(to: old, new: new) == new ? "yes" : "NO",
            ])
        }
        Harness.table(
            [
                "n", "ours", "floor (2 id tables)", "ours/floor", "stdlib", "stdlib/ours", "moves (ours / minimal)",
                "applies",
            ],
            rows)
        print()
    }
}
