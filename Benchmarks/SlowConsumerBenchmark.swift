import LiveCore
import TestSupport

/// A `for await` consumer that stops pulling (a slow loop body, or a loop left by `break` in
/// top-level code, whose iterator stays registered): what it costs the writer per commit, beside
/// the same commits with no consumer, in the same run.
enum SlowConsumerBenchmark {
    static func run() async {
        print("## core.slow — a consumer that stops pulling\n")
        print("Writer time per commit (one insertion at a random position into a PersistentArray window):\n")
        var rows: [[String]] = []
        for window in [1_000, 8_000, 100_000] {
            let commits = 4_000
            var bare: [Double] = []
            var stalled: [Double] = []
            for _ in 0..<5 {  // interleaved, so that drift hits both alike
                bare.append(await drive(window: window, commits: commits, stalledConsumer: false))
                stalled.append(await drive(window: window, commits: commits, stalledConsumer: true))
            }
            let (b, s) = (bare.sorted()[2] / Double(commits), stalled.sorted()[2] / Double(commits))
            rows.append(["\(window)", Harness.format(b), Harness.format(s), Harness.ratio(s / b)])
        }
        Harness.table(["window", "no consumer (baseline)", "a consumer that stopped pulling", "ratio"], rows)
        print()
    }

    /// Seconds for `commits` insertions into a window of `window` elements; with
    /// `stalledConsumer`, an async iterator takes its first update and never pulls again.
    private static func drive(window: Int, commits: Int, stalledConsumer: Bool) async -> Double {
        var elements = PersistentArray((0..<window).map { Item(id: $0) })
        let source = LiveCollectionSource<Item>(snapshots: Array(0..<window).map { Item(id: $0) })
        var iterator = source.collection.updates.makeAsyncIterator()
        if stalledConsumer { _ = await iterator.next() }
        var generator = SeededGenerator(seed: 11)
        let positions = (0..<commits).map { Int.random(in: 0...(window + $0), using: &generator) }
        let seconds = Harness.once {
            for (commit, position) in positions.enumerated() {
                elements.insert(Item(id: window + commit), at: position)
                source.publish(elements: elements, change: CollectionChange(insertions: [position]))
            }
        }
        blackHole(iterator)
        return seconds
    }
}
