import Dispatch
import LiveCore
import TestSupport
import Testing

@Suite struct CoalescingTests {
    /// A blocked observer, 1,000 commits, then release: it receives one change that, applied to
    /// the last snapshot it saw, yields the newest snapshot.
    @Test func blockedObserverReceivesOneComposedChange() {
        for seed in UInt64(1)...5 {
            var generator = SeededGenerator(seed: seed)
            var nextId = 100
            var current = [Item](ids: Array(0..<100))
            let source = LiveCollectionSource<Item>(snapshots: current)
            let queue = DispatchQueue(label: "blocked")
            let gate = DispatchSemaphore(value: 0)
            let seen = Recorder<([Item], CollectionChange?)>()
            let token = source.collection.observe(on: .queue(queue)) { collection, change, _ in
                if change == nil { gate.wait() }
                seen.append((collection.snapshots, change))
            }
            for _ in 0..<1_000 {
                current = ChangeScenario.mutate(current, rate: 0.05, nextId: &nextId, using: &generator)
                source.publish(snapshots: current)
            }
            gate.signal()
            queue.sync {}
            let values = seen.values
            #expect(values.count == 2, "seed \(seed)")
            guard values.count == 2, let change = values[1].1 else { continue }
            #expect(values[1].0 == current, "seed \(seed)")
            #expect(change.isValid(oldCount: values[0].0.count, newCount: current.count), "seed \(seed)")
            #expect(change.applying(to: values[0].0, new: current) == current, "seed \(seed)")
            token.invalidate()
        }
    }

    @Test func slowIteratorGetsOneComposedUpdate() async {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1, 2, 3]))
        var iterator = source.collection.updates.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.change == nil)
        var current = first!.snapshots
        for id in 4..<500 {
            current = Array(current.dropFirst()) + [Item(id: id)]
            source.publish(snapshots: current)
        }
        let second = await iterator.next()
        #expect(second?.snapshots == current)
        #expect(second?.change?.applying(to: first!.snapshots, new: current) == current)
    }
}
