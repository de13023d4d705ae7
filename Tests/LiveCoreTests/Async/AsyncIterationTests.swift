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

    /// `for await update in query().updates` holds nothing but the iterator: the iterator keeps
    /// the source (and what the source keeps, such as a live query) alive until it is destroyed.
    @Test func anUpdatesIteratorKeepsItsSourceAliveUntilItEnds() async {
        weak var weakSource: LiveCollectionSource<Item>?
        var iterator: LiveUpdates<Item>.Iterator? = {
            let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1]))
            weakSource = source
            return source.collection.updates.makeAsyncIterator()
        }()
        #expect(weakSource != nil)
        #expect(await iterator?.next()?.snapshots.map(\.id) == [1])
        weakSource?.publish(snapshots: [Item](ids: [1, 2]))
        #expect(await iterator?.next()?.snapshots.map(\.id) == [1, 2])
        iterator = nil
        #expect(weakSource == nil)
    }

    @Test func aValuesIteratorKeepsItsSourceAliveUntilItEnds() async {
        weak var weakSource: LiveObjectSource<Int>?
        var iterator: LiveValues<Int>.Iterator? = {
            let source = LiveObjectSource<Int>(snapshot: 1)
            weakSource = source
            return source.object.values.makeAsyncIterator()
        }()
        #expect(weakSource != nil)
        #expect(await iterator?.next() == .some(1))
        weakSource?.publish(snapshot: 2)
        #expect(await iterator?.next() == .some(2))
        iterator = nil
        #expect(weakSource == nil)
    }
}
