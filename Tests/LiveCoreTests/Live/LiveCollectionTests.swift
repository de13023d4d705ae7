import Dispatch
import LiveCore
import TestSupport
import Testing

@Suite struct LiveCollectionTests {
    @Test func firstChangeIsNilThenChangesFitTheirSnapshots() {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1, 2, 3]))
        let seen = Recorder<([Item], CollectionChange?)>()
        let token = source.collection.observe(on: .synchronous) { collection, change, _ in
            seen.append((collection.snapshots, change))
        }
        source.publish(snapshots: [Item](ids: [3, 1, 4]))
        source.publish(snapshots: [Item](ids: [3, 4]))
        let values = seen.values
        #expect(values.count == 3)
        #expect(values[0].1 == nil)
        for index in 1..<values.count {
            let change = values[index].1!
            #expect(change.applying(to: values[index - 1].0, new: values[index].0) == values[index].0)
        }
        token.invalidate()
    }

    @Test func observeOnceFiresOnceWithTheFirstLoadedPage() {
        let source = LiveCollectionSource<Item>(loadingStatus: .loading)
        let seen = Recorder<[Item]>()
        let changes = Recorder<CollectionChange?>()
        var token: NotificationToken? = source.collection.observeOnce(on: .synchronous) { collection, change, _ in
            seen.append(collection.snapshots)
            changes.append(change)
        }
        source.publish(snapshots: [Item](ids: [1]))  // still loading: not yet
        source.publish(snapshots: [Item](ids: [1, 2]), loadingStatus: .loaded)
        source.publish(snapshots: [Item](ids: [1, 2, 3]))
        #expect(seen.values == [[Item](ids: [1, 2])])
        #expect(changes.values.count == 1 && changes.values[0] == nil)
        #expect(token?.isValid == false)
        #expect(!source.isObserved)
        token = nil
    }

    @Test func observeOnceCanBeCancelledBeforeItFires() {
        let source = LiveCollectionSource<Item>(loadingStatus: .loading)
        let seen = Recorder<Int>()
        let token = source.collection.observeOnce(on: .synchronous) { collection, _, _ in seen.append(collection.count)
        }
        token.invalidate()
        source.publish(snapshots: [Item](ids: [1]), loadingStatus: .loaded)
        #expect(seen.values.isEmpty)
        #expect(!source.isObserved)
    }

    @Test @MainActor func observeOnceDefaultsToTheMainActor() async {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [4, 5]))
        let count = await withCheckedContinuation { continuation in
            source.collection.observeOnce { collection, _, _ in
                MainActor.assertIsolated()
                continuation.resume(returning: collection.count)
            }
        }
        #expect(count == 2)
    }

    @Test func readsAndIndexing() {
        let collection = LiveCollection(constant: [Item](ids: [7, 8]))
        #expect(collection.count == 2)
        #expect(collection.object(at: 1)?.id == 8)
        #expect(collection.object(at: 2) == nil)
        #expect(collection.object(at: -1) == nil)
        #expect(collection.snapshots.map(\.id) == [7, 8])
    }

    @Test func givenChangeIsDeliveredAsIs() {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1, 2]))
        let seen = Recorder<CollectionChange?>()
        let token = source.collection.observe(on: .synchronous) { _, change, _ in seen.append(change) }
        let change = CollectionChange(insertions: [0])
        source.publish(snapshots: [Item](ids: [0, 1, 2]), change: change)
        #expect(seen.values.last == change)
        token.invalidate()
    }

    @Test func statusOnlyCommitsDeliverAnEmptyChange() {
        let source = LiveCollectionSource<Item>()
        let seen = Recorder<(CollectionChange?, LoadingStatus, Bool)>()
        let token = source.collection.observe(on: .synchronous) { collection, change, _ in
            seen.append((change, collection.loadingStatus, collection.hasNext))
        }
        source.publish(loadingStatus: .loading, hasNext: true)
        #expect(seen.values.last! == (CollectionChange.empty, .loading, true))
        token.invalidate()
    }

    @Test func pagingIsForwardedToThePager() {
        final class Pager: LiveCollectionPaging {
            let calls = Recorder<String>()
            func loadNextPage() { calls.append("next") }
            func loadPreviousPage() { calls.append("previous") }
        }
        let pager = Pager()
        let source = LiveCollectionSource<Item>(hasNext: true, pager: pager)
        let collection = source.collection
        #expect(collection.hasNext)
        #expect(!collection.hasPrevious)
        collection.nextPage()
        collection.previousPage()
        #expect(pager.calls.values == ["next", "previous"])
    }

    @Test func queueDeliveryKeepsOrderAndFitsEveryChange() {
        let source = LiveCollectionSource<Item>()
        let queue = DispatchQueue(label: "observer")
        let seen = Recorder<([Item], CollectionChange?)>()
        let token = source.collection.observe(on: .queue(queue)) { collection, change, _ in
            seen.append((collection.snapshots, change))
        }
        var generator = SeededGenerator(seed: 7)
        var nextId = 0
        var current: [Item] = []
        for _ in 0..<300 {
            current = ChangeScenario.mutate(current, rate: 0.2, nextId: &nextId, using: &generator)
            source.publish(snapshots: current)
        }
        queue.sync {}
        let values = seen.values
        #expect(values.last?.0 == current)
        for index in 1..<values.count {
            let (previous, _) = values[index - 1]
            let (snapshot, change) = values[index]
            #expect(change?.applying(to: previous, new: snapshot) == snapshot)
        }
        token.invalidate()
    }
}
