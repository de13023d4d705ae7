import Dispatch
import LiveCore
import Synchronization
import TestSupport
import Testing

@Suite struct NotificationTokenTests {
    @Test func invalidateIsIdempotent() {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let token = source.object.observe(on: .synchronous) { _, _ in }
        #expect(token.isValid)
        token.invalidate()
        token.invalidate()
        #expect(!token.isValid)
        #expect(!source.isObserved)
    }

    @Test func deinitInvalidates() {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let seen = Recorder<Int?>()
        do {
            let token = source.object.observe(on: .synchronous) { object, _ in seen.append(object.snapshot) }
            withExtendedLifetime(token) { source.publish(snapshot: 1) }
        }
        source.publish(snapshot: 2)
        #expect(seen.values == [0, 1])
        #expect(!source.isObserved)
    }

    @Test func queuedDeliveriesAreDroppedByInvalidate() {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let queue = DispatchQueue(label: "held")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // hold the queue so deliveries pile up
        let seen = Recorder<Int?>()
        let token = source.object.observe(on: .queue(queue)) { object, _ in seen.append(object.snapshot) }
        for value in 1...10 { source.publish(snapshot: value) }
        token.invalidate()
        gate.signal()
        queue.sync {}
        #expect(seen.count == 0)
    }

    @Test func invalidateFromInsideTheCallbackStopsFurtherCalls() {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let seen = Recorder<Int?>()
        let holder = Recorder<NotificationToken>()
        holder.append(
            source.object.observe(on: .synchronous) { object, _ in
                seen.append(object.snapshot)
                if object.snapshot == 1 { holder.last?.invalidate() }
            })
        source.publish(snapshot: 1)
        source.publish(snapshot: 2)
        #expect(seen.values == [0, 1])
    }

    /// Stress: deliveries queued on one queue while other threads commit and one thread
    /// invalidates. No callback may start once `invalidate()` has returned.
    @Test func noDeliveryStartsAfterInvalidateReturns() {
        for iteration in 0..<300 {
            let source = LiveCollectionSource<Item>()
            let queue = DispatchQueue(label: "deliveries")
            let invalidated = Atomic<Bool>(false)
            let late = Atomic<Int>(0)
            let delivered = Atomic<Int>(0)
            let token = source.collection.observe(on: .queue(queue)) { _, _, _ in
                if invalidated.load(ordering: .sequentiallyConsistent) {
                    late.add(1, ordering: .relaxed)
                }
                delivered.add(1, ordering: .relaxed)
            }
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                if worker == 0 {
                    for _ in 0..<(iteration % 40) { source.publish(loadingStatus: .loading) }
                    token.invalidate()
                    invalidated.store(true, ordering: .sequentiallyConsistent)
                } else {
                    for value in 0..<30 { source.publish(snapshots: [Item(id: value, value: worker)]) }
                }
            }
            queue.sync {}
            #expect(late.load(ordering: .relaxed) == 0, "iteration \(iteration)")
            #expect(!source.isObserved)
        }
    }
}
