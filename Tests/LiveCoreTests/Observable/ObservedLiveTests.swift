import LiveCore
import Observation
import TestSupport
import Testing

/// `ObservedLiveCollection` / `ObservedLiveObject`: reading a property inside
/// `withObservationTracking` registers a dependency, a change of the live value fires `onChange`,
/// and releasing the model stops its observation. No clock: each test awaits the `onChange`.
@Suite(.timeLimit(.minutes(1))) @MainActor struct ObservedLiveTests {
    @Test func collectionSnapshotsChangeFiresOnChange() async {
        let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1)], dataStatus: .fresh)
        let model = ObservedLiveCollection(source.collection)
        #expect(model.snapshots == [Item(id: 1)])
        #expect(model.dataStatus == .fresh)
        #expect(source.isObserved)

        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = model.snapshots
            } onChange: {
                continuation.resume()
            }
            source.publish(snapshots: [Item(id: 1), Item(id: 2)])
        }
        // onChange runs in willSet; the continuation resumes after the delivery has assigned.
        #expect(model.snapshots == [Item(id: 1), Item(id: 2)])
        #expect(model.count == 2)
    }

    @Test func collectionStatusesAndPaging() async {
        let source = LiveCollectionSource<Item>(snapshots: [], dataStatus: .local, hasNext: true)
        let model = ObservedLiveCollection(source.collection)
        #expect(model.hasNext)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = model.loadingStatus
            } onChange: {
                continuation.resume()
            }
            source.publish(dataStatus: .error, loadingStatus: .error, hasNext: false, error: Failure())
        }
        #expect(model.loadingStatus == .error)
        #expect(model.dataStatus == .error)
        #expect(model.error is Failure)
        #expect(!model.hasNext)
    }

    @Test func objectSnapshotChangeFiresOnChange() async {
        let source = LiveObjectSource<Int>(snapshot: 1, dataStatus: .fresh)
        let model = ObservedLiveObject(source.object)
        #expect(model.snapshot == 1)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = model.snapshot
            } onChange: {
                continuation.resume()
            }
            source.publish(snapshot: 2)
        }
        #expect(model.snapshot == 2)
        #expect(model.dataStatus == .fresh)
    }

    @Test func releasingTheModelStopsObserving() {
        let collectionSource = LiveCollectionSource<Item>(snapshots: [Item(id: 1)])
        let objectSource = LiveObjectSource<Int>(snapshot: 1)
        weak var weakCollection: ObservedLiveCollection<Item>?
        weak var weakObject: ObservedLiveObject<Int>?
        do {
            let collection = ObservedLiveCollection(collectionSource.collection)
            let object = ObservedLiveObject(objectSource.object)
            weakCollection = collection
            weakObject = object
            #expect(collectionSource.isObserved)
            #expect(objectSource.isObserved)
        }
        #expect(weakCollection == nil)
        #expect(weakObject == nil)
        #expect(!collectionSource.isObserved)
        #expect(!objectSource.isObserved)
    }
}

private struct Failure: Error {}
