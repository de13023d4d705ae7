import LiveCore
import TestSupport
import Testing

@Suite struct DerivedValueTests {
    @Test func mapFollowsItsInput() {
        let source = LiveObjectSource<Int>(snapshot: 2, dataStatus: .fresh)
        let doubled = source.object.map { $0 * 2 }
        #expect(doubled.snapshot == 4)
        #expect(doubled.dataStatus == .fresh)
        source.publish(snapshot: 5)
        #expect(doubled.snapshot == 10)
        source.publish(snapshot: .some(nil))
        #expect(doubled.snapshot == nil)
    }

    @Test func combineLatestRecomputesOnEitherSide() {
        let first = LiveObjectSource<Int>(snapshot: 1, dataStatus: .fresh)
        let second = LiveObjectSource<String>(snapshot: "a", dataStatus: .local)
        let combined = first.object.combineLatest(second.object) { number, text in "\(text ?? "")\(number ?? 0)" }
        #expect(combined.snapshot == "a1")
        #expect(combined.dataStatus == .local)
        first.publish(snapshot: 2)
        second.publish(snapshot: "b", dataStatus: .fresh)
        #expect(combined.snapshot == "b2")
        #expect(combined.dataStatus == .fresh)
    }

    @Test func reduceIsPublishedOnlyWhenItChanges() {
        let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1, value: 3)])
        let total = source.collection.sum { $0.value }
        let seen = Recorder<Int?>()
        let token = total.observe(on: .synchronous) { object, _ in seen.append(object.snapshot) }
        source.publish(snapshots: [Item(id: 1, value: 3), Item(id: 2, value: 0)])  // sum unchanged
        source.publish(snapshots: [Item(id: 2, value: 4)])
        #expect(seen.values == [3, 4])
        token.invalidate()
    }

    /// Over random commit sequences, incremental aggregates equal a recomputation from scratch.
    @Test func incrementalReductionEqualsRecomputation() {
        for seed in UInt64(1)...200 {
            var generator = SeededGenerator(seed: seed)
            var nextId = 0
            var current = ChangeScenario.items(count: Int.random(in: 0...50, using: &generator), using: &generator)
            nextId = 1_000
            let source = LiveCollectionSource<Item>(snapshots: current)
            let sum = source.collection.sum { $0.value }
            let evens = source.collection.count { $0.value % 2 == 0 }
            let label = sum.combineLatest(evens) { "\($0 ?? -1)/\($1 ?? -1)" }
            let histogram = source.collection.reduce(
                [Int: Int](),
                adding: { histogram, item in histogram.merging([item.value: 1], uniquingKeysWith: +) },
                removing: { histogram, item in
                    var histogram = histogram
                    histogram[item.value, default: 0] -= 1
                    if histogram[item.value] == 0 { histogram[item.value] = nil }
                    return histogram
                })
            for _ in 0..<50 {
                let rate = Double.random(in: 0...0.5, using: &generator)
                current = ChangeScenario.mutate(current, rate: rate, nextId: &nextId, using: &generator)
                    .map { Item(id: $0.id, value: $0.value &* 7 % 101) }
                source.publish(snapshots: current)
                let expectedSum = current.reduce(0) { $0 + $1.value }
                let expectedEvens = current.filter { $0.value % 2 == 0 }.count
                #expect(sum.snapshot == expectedSum, "seed \(seed)")
                #expect(evens.snapshot == expectedEvens, "seed \(seed)")
                #expect(label.snapshot == "\(expectedSum)/\(expectedEvens)", "seed \(seed)")
                let expectedHistogram = Dictionary(current.map { ($0.value, 1) }, uniquingKeysWith: +)
                #expect(histogram.snapshot == expectedHistogram, "seed \(seed)")
            }
        }
    }
}
