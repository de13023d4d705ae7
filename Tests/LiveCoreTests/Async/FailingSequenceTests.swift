import LiveCore
import TestSupport
import Testing

/// An async sequence over a handle that fails ends (it never throws): the failed state
/// (`dataStatus == .error`) is delivered, then the loop ends. A handle that keeps data keeps
/// going when a later load fails.
@Suite(.timeLimit(.minutes(1))) struct FailingSequenceTests {
    @Test func valuesEndAfterTheObjectFails() async {
        let source = LiveObjectSource<Int>(loadingStatus: .loading)
        let object = source.object
        var seen: [Int?] = []
        var first = true
        for await value in object.values {
            seen.append(value)
            if first {
                first = false
                source.publish(dataStatus: .error, loadingStatus: .error, error: Failure())
            }
        }
        #expect(seen == [nil, nil])
        #expect(object.error is Failure)
        #expect(!source.isObserved)
    }

    @Test func valuesOfAnAlreadyFailedObjectEnd() async {
        let source = LiveObjectSource<Int>()
        source.publish(dataStatus: .error, loadingStatus: .error, error: Failure())
        var count = 0
        for await _ in source.object.values { count += 1 }
        #expect(count == 1)
    }

    @Test func updatesEndAfterTheCollectionFails() async {
        let failed = LiveCollection<Item>(failure: Failure())
        var updates: [CollectionUpdate<Item>] = []
        for await update in failed.updates { updates.append(update) }
        #expect(updates.count == 1)
        #expect(updates.first?.dataStatus == .error)
        #expect(updates.first?.error is Failure)
    }

    @Test func updatesKeepGoingWhenAListWithDataFailsToPage() async {
        let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1)], dataStatus: .fresh)
        var statuses: [LoadingStatus] = []
        for await update in source.collection.updates {
            statuses.append(update.loadingStatus)
            switch statuses.count {
            case 1: source.publish(loadingStatus: .error, error: Failure())  // a page failed: data stays
            case 2: source.publish(snapshots: [Item(id: 1), Item(id: 2)], loadingStatus: .loaded)
            default: break
            }
            if statuses.count == 3 { break }
        }
        #expect(statuses == [.notLoading, .error, .loaded])
    }
}

private struct Failure: Error {}

/// A failed handle that loads again (a retry) keeps its sequence going until the retry ends.
@Suite(.timeLimit(.minutes(1))) struct RetryingSequenceTests {
    @Test func aRetryKeepsTheSequenceGoing() async {
        let source = LiveCollectionSource<Item>(dataStatus: .error, loadingStatus: .loading)
        var statuses: [DataStatus] = []
        for await update in source.collection.updates {
            statuses.append(update.dataStatus)
            if statuses.count == 1 {
                source.publish(snapshots: [Item(id: 1)], dataStatus: .fresh, loadingStatus: .loaded)
            }
            if update.dataStatus == .fresh { break }
        }
        #expect(statuses == [.error, .fresh])
    }
}
