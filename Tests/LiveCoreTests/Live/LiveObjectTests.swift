import Dispatch
import LiveCore
import TestSupport
import Testing

@Suite struct LiveObjectTests {
    @Test func firstDeliveryIsTheCurrentStateThenEachChange() {
        let source = LiveObjectSource<Int>(snapshot: 1)
        let seen = Recorder<Int?>()
        let token = source.object.observe(on: .synchronous) { object, _ in seen.append(object.snapshot) }
        source.publish(snapshot: 2)
        source.publish(snapshot: .some(nil))
        #expect(seen.values == [1, 2, nil])
        token.invalidate()
        source.publish(snapshot: 3)
        #expect(seen.values == [1, 2, nil])
    }

    @Test func statusesAndErrorsArriveInOneStep() {
        let source = LiveObjectSource<String>()
        let object = source.object
        #expect(object.dataStatus == .notExist)
        #expect(object.loadingStatus == .notLoading)
        let seen = Recorder<(DataStatus, LoadingStatus, String?, Bool)>()
        let token = object.observe(on: .synchronous) { object, error in
            seen.append((object.dataStatus, object.loadingStatus, object.snapshot, error != nil))
        }
        source.publish(loadingStatus: .loading)
        source.publish(snapshot: "x", dataStatus: .fresh, loadingStatus: .loaded)
        source.publish(dataStatus: .error, loadingStatus: .error, error: TestError.boom)
        let values = seen.values
        #expect(values.count == 4)
        #expect(values[1].1 == .loading)
        #expect(values[2] == (.fresh, .loaded, "x", false))
        #expect(values[3] == (.error, .error, "x", true))
        #expect(object.error as? TestError == .boom)
        withExtendedLifetime(token) {}
    }

    @Test func objectInsideCallbackShowsTheDeliveredState() {
        let source = LiveObjectSource<Int>(snapshot: 0)
        let queue = DispatchQueue(label: "slow")
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let seen = Recorder<(Int?, Int?)>()
        let token = source.object.observe(on: .queue(queue)) { object, _ in
            if object.snapshot == 0 {
                started.signal()
                gate.wait()
            }
            seen.append((object.snapshot, source.snapshot))
        }
        started.wait()  // the first callback is running, blocked, showing 0
        source.publish(snapshot: 1)
        source.publish(snapshot: 2)
        gate.signal()
        queue.sync {}
        // The first callback still saw 0 while the live value had moved on to 2; the next one
        // got the newest value, coalesced.
        #expect(seen.values.map(\.0) == [0, 2])
        #expect(seen.values.first?.1 == 2)
        token.invalidate()
    }

    @Test func amityObjectAliasReadsTheSnapshot() {
        let object = LiveObject(constant: "value")
        #expect(object.object == "value")
        #expect(object.dataStatus == .fresh)
    }

    @Test func observeOnceFiresOnceWhenNotLoading() {
        let source = LiveObjectSource<Int>(loadingStatus: .loading)
        let seen = Recorder<Int?>()
        let token = source.object.observeOnce(on: .synchronous) { object, _ in seen.append(object.snapshot) }
        source.publish(snapshot: 1)  // still loading: not yet
        source.publish(snapshot: 2, loadingStatus: .loaded)
        source.publish(snapshot: 3)
        #expect(seen.values == [2])
        #expect(!token.isValid)
        #expect(!source.isObserved)
    }

    @Test @MainActor func defaultObserveDeliversOnTheMainActor() async {
        let source = LiveObjectSource<Int>(snapshot: 5)
        let seen = await withCheckedContinuation { continuation in
            let holder = Recorder<NotificationToken>()
            holder.append(
                source.object.observe { object, _ in
                    MainActor.assertIsolated()
                    continuation.resume(returning: object.snapshot)
                    holder.last?.invalidate()
                })
        }
        #expect(seen == 5)
    }

    @Test func concurrentUpdatesLoseNothing() {
        let source = LiveObjectSource<Int>(snapshot: 0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { source.update { ($0 ?? 0) + 1 } }
        }
        #expect(source.snapshot == 8_000)
    }
}

enum TestError: Error, Equatable {
    case boom
}
