import Dispatch
import LiveCore
import TestSupport
import Testing

@Suite struct LiveTallyTests {
    @Test func totalFollowsContributions() {
        let tally = LiveTally<String, Int>()
        let seen = Recorder<Int?>()
        let token = tally.object.observe(on: .synchronous) { object, _ in seen.append(object.snapshot) }
        tally.set(3, for: "a")
        tally.set(4, for: "b")
        tally.set(1, for: "a")
        tally.set(nil, for: "b")
        tally.set(nil, for: "missing")  // no change: no publish
        tally.set([("c", 2), ("a", 0)] as [(String, Int?)])
        #expect(tally.total == 2)
        #expect(tally.count == 2)
        #expect(seen.values == [0, 3, 7, 5, 1, 2])
        token.invalidate()
    }

    /// Random updates from several threads: the total always ends equal to a re-sum.
    @Test func concurrentUpdatesEqualAReSum() {
        for seed in UInt64(1)...20 {
            let tally = LiveTally<Int, Int>()
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                var generator = SeededGenerator(seed: seed &* 31 &+ UInt64(worker))
                for _ in 0..<500 {
                    let key = worker * 1_000 + Int.random(in: 0..<50, using: &generator)
                    tally.set(
                        Bool.random(using: &generator) ? Int.random(in: 0..<10, using: &generator) : nil, for: key)
                }
            }
            let resum = (0..<4_000).reduce(0) { $0 + (tally.value(for: $1) ?? 0) }
            #expect(tally.total == resum, "seed \(seed)")
            #expect(tally.object.snapshot == resum, "seed \(seed)")
        }
    }

    /// Unobserved, updates only adjust the total; the object shows the newest total and
    /// statuses when read, and a later observer starts from them and then sees every change.
    @Test func unobservedTallyCatchesUpWhenReadOrObserved() {
        let tally = LiveTally<String, Int>(dataStatus: .local, loadingStatus: .loading)
        for index in 0..<1_000 { tally.set(index % 7, for: "k\(index % 10)") }
        tally.publish(dataStatus: .fresh, loadingStatus: .loaded)
        let object = tally.object
        #expect(object.snapshot == tally.total)
        #expect(object.dataStatus == .fresh && object.loadingStatus == .loaded)
        tally.set(100, for: "new")
        #expect(object.snapshot == tally.total)

        let seen = Recorder<Int?>()
        let token = object.observe(on: .synchronous) { object, _ in seen.append(object.snapshot) }
        let start = tally.total
        tally.set(1, for: "another")
        tally.set(nil, for: "another")
        #expect(seen.values == [start, start + 1, start])
        token.invalidate()
        tally.set(5, for: "after")
        #expect(seen.count == 3)
        #expect(object.snapshot == start + 5)
    }
}
