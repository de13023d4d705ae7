import LiveCore
import Locking
import Synchronization
import TestSupport
import Testing

/// The table of observers behind every live value: registrations, removals in any order (which
/// leave holes that are compacted) and commits, interleaved at random.
@Suite struct ObserverTableTests {
    /// After every step, each registered observer has seen exactly the newest snapshot, applying
    /// each change it got to the snapshot before it; an invalidated observer is never called again.
    @Test(arguments: UInt64(1)...30)
    func observersFollowEveryCommitWhileOthersComeAndGo(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let source = LiveCollectionSource<Item>(snapshots: [])
        let collection = source.collection
        var current: [Item] = []
        var nextId = 0

        final class Watcher: Sendable {
            let seen = Lock<[Item]?>(nil)
            let callsAfterInvalidate = Lock(0)
            let isInvalidated = Atomic(false)
            let token = Lock<NotificationToken?>(nil)
        }
        var watchers: [Watcher] = []
        var gone: [Watcher] = []

        for step in 0..<400 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<3:
                let watcher = Watcher()
                let token = collection.observe(on: .synchronous) { collection, change, _ in
                    if watcher.isInvalidated.load(ordering: .relaxed) {
                        watcher.callsAfterInvalidate.withLock { $0 += 1 }
                    }
                    watcher.seen.withLock { seen in
                        if let change, let previous = seen {
                            seen = change.applying(to: previous, new: collection.snapshots)
                        } else {
                            seen = collection.snapshots
                        }
                    }
                }
                watcher.token.withLock { $0 = token }
                watchers.append(watcher)
            case 3..<6 where !watchers.isEmpty:
                let watcher = watchers.remove(at: Int.random(in: watchers.indices, using: &generator))
                watcher.token.withLock { $0?.invalidate() }
                watcher.isInvalidated.store(true, ordering: .relaxed)
                gone.append(watcher)
            default:
                current = ChangeScenario.mutate(current, rate: 0.3, nextId: &nextId, using: &generator)
                if current.isEmpty { current = [Item(id: 1_000_000 + step)] }
                source.publish(snapshots: current)
            }
            for watcher in watchers {
                #expect(watcher.seen.withLock { $0 } == current, "seed \(seed), step \(step)")
            }
        }
        for watcher in gone {
            #expect(watcher.callsAfterInvalidate.withLock { $0 } == 0, "seed \(seed)")
        }
        #expect(source.isObserved == !watchers.isEmpty)
        for watcher in watchers { watcher.token.withLock { $0?.invalidate() } }
        #expect(!source.isObserved)
    }
}
