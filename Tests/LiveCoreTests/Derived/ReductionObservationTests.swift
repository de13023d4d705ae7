import Dispatch
import LiveCore
import Locking
import Synchronization
import TestSupport
import Testing

/// An incremental reduction publishes to its observers on every commit that changes it, and
/// while nobody observes it only folds, catching up when read. These tests pin down that the
/// difference is invisible: reads, first deliveries and later deliveries are always current.
@Suite struct ReductionObservationTests {
    @Test func unobservedReductionIsCurrentWhenRead() {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1, 2, 3]), dataStatus: .local)
        let total = source.collection.sum { $0.id }
        #expect(total.snapshot == 6)
        #expect(total.dataStatus == .local)
        for id in 4...100 {
            source.update { $0 + [Item(id: id)] }
        }
        #expect(total.snapshot == 5_050)
        source.publish(dataStatus: .fresh, loadingStatus: .loaded)
        #expect(total.dataStatus == .fresh)
        #expect(total.loadingStatus == .loaded)
    }

    @Test func observersStartCurrentAndFollowEveryChange() {
        let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1, value: 1)])
        let total = source.collection.sum { $0.value }
        source.publish(snapshots: [Item(id: 1, value: 1), Item(id: 2, value: 2)])  // unobserved

        let first = Recorder<Int?>()
        let firstToken = total.observe(on: .synchronous) { object, _ in first.append(object.snapshot) }
        #expect(first.values == [3])
        source.publish(snapshots: [Item(id: 2, value: 2)])
        #expect(first.values == [3, 2])
        firstToken.invalidate()

        // Unobserved again: commits only fold; a new observer still starts from the newest value.
        source.publish(snapshots: [Item(id: 2, value: 2), Item(id: 3, value: 10)])
        source.publish(snapshots: [Item(id: 3, value: 10)])
        let second = Recorder<Int?>()
        let secondToken = total.observe(on: .synchronous) { object, _ in second.append(object.snapshot) }
        #expect(second.values == [10])
        source.publish(snapshots: [Item(id: 3, value: 11)])
        #expect(second.values == [10, 11])
        #expect(first.values == [3, 2])
        secondToken.invalidate()
    }

    @Test func iteratorsStartCurrent() async {
        let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1, value: 5)])
        let total = source.collection.sum { $0.value }
        source.publish(snapshots: [Item(id: 1, value: 7)])
        for await value in total.values {
            #expect(value == 7)
            break
        }
    }

    /// Observers register and leave while other threads commit: an observer registered when the
    /// commits end has received the final aggregate — none is lost in the hand-over between
    /// folding only and publishing.
    @Test func registrationsRacingCommitsMissNothing() {
        for round in 0..<20 {
            let source = LiveCollectionSource<Item>(snapshots: (0..<8).map { Item(id: $0, value: 0) })
            let total = source.collection.sum { $0.value }
            let last = Lock<Int?>(nil)
            let finalToken = Lock<NotificationToken?>(nil)
            DispatchQueue.concurrentPerform(iterations: 3) { worker in
                if worker == 0 {
                    // Register and invalidate over and over, keeping the last registration.
                    for attempt in 0..<200 {
                        let token = total.observe(on: .synchronous) { object, _ in
                            last.withLock { $0 = object.snapshot }
                        }
                        if attempt == 199 { finalToken.withLock { $0 = token } } else { token.invalidate() }
                    }
                } else {
                    for step in 0..<300 {
                        source.update { items in
                            var items = items
                            items[(step * 3 + worker) % items.count].value += worker
                            return items
                        }
                    }
                }
            }
            let expected = source.snapshots.reduce(0) { $0 + $1.value }
            #expect(expected == 300 * 1 + 300 * 2, "round \(round)")
            #expect(last.withLock { $0 } == expected, "round \(round)")
            #expect(total.snapshot == expected, "round \(round)")
            finalToken.withLock { $0?.invalidate() }
        }
    }

    /// The narrowest race: the first registration and the last commit start together, on two
    /// threads, many times over. The observer must end with the aggregate of that commit.
    /// (Registering before folding-only ends and catching up after it, in any other order, fails
    /// this within a few thousand rounds.)
    @Test func firstObserverRacingTheLastCommitMissesNothing() {
        for round in 0..<3_000 {
            let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1, value: 0)])
            let total = source.collection.sum { $0.value }
            let last = Lock<Int?>(nil)
            let tokens = Lock<[NotificationToken]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                if worker == 0 {
                    let token = total.observe(on: .synchronous) { object, _ in
                        last.withLock { $0 = object.snapshot }
                    }
                    tokens.withLock { $0.append(token) }
                } else {
                    source.publish(snapshots: [Item(id: 1, value: round + 1)])
                }
            }
            #expect(last.withLock { $0 } == round + 1, "round \(round)")
            tokens.withLock { $0.forEach { $0.invalidate() } }
        }
    }

    @Test func reductionStopsFoldingOnceItsValueIsGone() {
        let calls = Atomic(0)
        weak var weakSource: LiveCollectionSource<Item>?
        do {
            let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1, value: 1)])
            weakSource = source
            do {
                let total = source.collection.sum { item in
                    calls.add(1, ordering: .relaxed)
                    return item.value
                }
                source.publish(snapshots: [Item(id: 1, value: 2)])
                #expect(total.snapshot == 2)
            }
            let before = calls.load(ordering: .relaxed)
            source.publish(snapshots: [Item(id: 1, value: 3)])
            source.publish(snapshots: [Item(id: 1, value: 4)])
            #expect(calls.load(ordering: .relaxed) == before)
        }
        #expect(weakSource == nil)
    }
}
