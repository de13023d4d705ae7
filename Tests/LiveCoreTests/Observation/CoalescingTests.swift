import Dispatch
@testable import LiveCore
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

/// An observer that does not take its deliveries (a slow `for await` body, or a loop left by
/// `break` in top-level code) costs each commit O(1) once it is far behind: past
/// `composedChangeLimit` entries, its change is no longer composed per commit but diffed once,
/// when it next takes a delivery.
@Suite struct FarBehindObserverTests {
    @Test func theRegistryStopsComposingPastTheLimit() {
        var registry = ObserverRegistry()
        let id = registry.addIterator()
        let box = ListSnapshot<Item>([])
        guard case .deliver(nil) = registry.take(id, current: box) else {
            Issue.record("no first delivery")
            return
        }
        // A few changes: composed.
        for index in 0..<10 { _ = registry.commit(CollectionChange(insertions: [index])) }
        #expect(!registry.isOwedRediff(id))
        // Past the limit: owed a diff, and further commits leave it so (nothing composed).
        for index in 10..<(ObserverRegistry.composedChangeLimit + 50) {
            _ = registry.commit(CollectionChange(insertions: [index]))
        }
        #expect(registry.isOwedRediff(id))
        guard case .rediff(let base) = registry.take(id, current: box) else {
            Issue.record("no diff owed")
            return
        }
        #expect(ObjectIdentifier(base) == ObjectIdentifier(box), "it diffs from the snapshot it last saw")
        #expect(!registry.isOwedRediff(id))
    }

    @Test func aFarBehindIteratorGetsAValidChange() async {
        for seed in UInt64(1)...3 {
            var generator = SeededGenerator(seed: seed)
            var nextId = 2_000
            var current = [Item](ids: Array(0..<2_000))
            let source = LiveCollectionSource<Item>(snapshots: current)
            var iterator = source.collection.updates.makeAsyncIterator()
            let first = await iterator.next()
            // 600 commits of a few elements each while the iterator does not pull: far past the
            // limit of a composed change.
            for _ in 0..<600 {
                current = ChangeScenario.mutate(current, rate: 0.001, nextId: &nextId, using: &generator)
                source.publish(snapshots: current)
            }
            let second = await iterator.next()
            #expect(second?.snapshots == current, "seed \(seed)")
            guard let old = first?.snapshots, let change = second?.change else {
                Issue.record("seed \(seed): no change delivered")
                continue
            }
            #expect(change.isValid(oldCount: old.count, newCount: current.count), "seed \(seed)")
            #expect(change.applying(to: old, new: current) == current, "seed \(seed)")
        }
    }
}
