import LiveCore
import TestSupport
import Testing

@Suite struct AsyncIterationTests {
    @Test func valuesYieldCurrentThenChanges() async {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let object = source.object
        var seen: [Int?] = []
        for await value in object.values {
            seen.append(value)
            if value == 3 { break }
            source.publish(snapshot: (value ?? 0) + 1)
        }
        #expect(seen == [0, 1, 2, 3])
        #expect(!source.isObserved)
    }

    @Test func updatesCarrySnapshotAndChange() async {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1]))
        var previous: [Item] = []
        var count = 0
        for await update in source.collection.updates {
            if count == 0 {
                #expect(update.change == nil)
            } else {
                #expect(update.change?.applying(to: previous, new: update.snapshots) == update.snapshots)
            }
            previous = update.snapshots
            count += 1
            if count == 4 { break }
            source.publish(snapshots: previous + [Item(id: count + 1)])
        }
        #expect(previous.map(\.id) == [1, 2, 3, 4])
    }

    @Test func cancellationEndsTheIteration() async {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let object = source.object
        let task = Task {
            var count = 0
            for await _ in object.values { count += 1 }
            return count
        }
        // Wait until the iterator is registered, then cancel it.
        while !source.isObserved { await Task.yield() }
        task.cancel()
        let count = await task.value
        #expect(count <= 1)
        #expect(!source.isObserved)
    }
}
