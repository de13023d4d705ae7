import Foundation
import Locking
import Testing
import TestSupport

@testable import ChatServer

@Suite struct RequestCombinerTests {
    /// What the requests did: who ran, in which order, and whether two ever overlapped.
    final class Ledger: Sendable {
        private let state = Lock((running: 0, overlapped: false, order: [Int]()))

        func run(_ id: Int, spinning: Int) -> Int {
            state.withLock { state in
                state.running += 1
                if state.running > 1 { state.overlapped = true }
            }
            var total = 0
            for step in 0..<spinning { total &+= step }
            state.withLock { state in
                state.running -= 1
                state.order.append(id)
            }
            return id &* 31 &+ (total & 0)
        }

        var overlapped: Bool { state.withLock { $0.overlapped } }
        var order: [Int] { state.withLock { $0.order } }
    }

    /// Many tasks send requests at once, some through the fast path, some queued (suspended, or
    /// with a callback): every request runs
    /// exactly once, never beside another, each caller gets its own request's outcome, and one
    /// task's requests run in the order it sent them (seeded; more waiting than one combiner
    /// runs, so the role is handed on).
    @Test(.timeLimit(.minutes(1))) func everyRequestRunsOnceAloneAndAnswersItsCaller() async {
        let seed = SeededGenerator.testSeed(0xC0B1)
        var random = SeededGenerator(seed: seed)
        let combiner = RequestCombiner<Int>()
        let ledger = Ledger()
        let tasks = 48
        let perTask = 60
        let spins = (0..<(tasks * perTask)).map { _ in Int.random(in: 0..<2_000, using: &random) }
        let answers = await withTaskGroup(of: [(Int, Int)].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var answers: [(Int, Int)] = []
                    for number in 0..<perTask {
                        let id = task * perTask + number
                        let spinning = spins[id]
                        if id % 3 == 0, combiner.tryCombining() {
                            // The fast path: the caller runs its own request, then the queue.
                            answers.append((id, ledger.run(id, spinning: spinning)))
                            combiner.finishCombining()
                        } else if id % 3 == 1,
                            let outcome = await withCheckedContinuation({ (waiter: CheckedContinuation<Int?, Never>) in
                                // Queued with a callback (no task suspended in the combiner).
                                let queued = combiner.enqueueIfCombining {
                                    ledger.run(id, spinning: spinning)
                                } done: { outcome in
                                    waiter.resume(returning: outcome)
                                }
                                if !queued { waiter.resume(returning: nil) }
                            })
                        {
                            answers.append((id, outcome))
                        } else {
                            answers.append((id, await combiner.run { ledger.run(id, spinning: spinning) }))
                        }
                        if id % 7 == 0 { await Task.yield() }
                    }
                    return answers
                }
            }
            return await group.reduce(into: [(Int, Int)]()) { $0 += $1 }
        }
        #expect(!ledger.overlapped, "two requests ran at once, seed \(seed)")
        #expect(answers.count == tasks * perTask)
        #expect(answers.allSatisfy { $0.1 == $0.0 &* 31 }, "a caller got another request's outcome, seed \(seed)")
        let order = ledger.order
        #expect(
            order.count == tasks * perTask && Set(order).count == order.count,
            "a request ran twice or never, seed \(seed)")
        for task in 0..<tasks {
            let mine = order.filter { $0 / perTask == task }
            #expect(mine == mine.sorted(), "task \(task)'s requests ran out of order, seed \(seed)")
        }
    }

    /// Requests queued with callbacks while one runs are run in order once it finishes, each
    /// callback told its own outcome; past the turns one combiner runs, a task is made to go
    /// on combining (no callback has one), and the role is free again at the end.
    @Test(.timeLimit(.minutes(1))) func callbacksQueuedWhileOneRunsRunInOrderPastOneCombinersTurns() async {
        let combiner = RequestCombiner<Int>()
        let ledger = Ledger()
        let told = Lock([(Int, Int)]())
        let queuedWhileIdle = combiner.enqueueIfCombining({ 0 }, done: { _ in })
        #expect(!queuedWhileIdle, "nothing runs: nothing is queued")
        #expect(combiner.tryCombining())
        let count = RequestCombiner<Int>.turnsPerCombiner * 2 + 5
        for id in 0..<count {
            let queued = combiner.enqueueIfCombining {
                ledger.run(id, spinning: 10)
            } done: { outcome in
                told.withLock { $0.append((id, outcome)) }
            }
            #expect(queued)
        }
        combiner.finishCombining()
        for _ in 0..<10_000 where told.withLock({ $0.count }) < count { await Task.yield() }
        let answers = told.withLock { $0 }
        #expect(answers.map(\.0) == Array(0..<count))
        #expect(answers.allSatisfy { $0.1 == $0.0 &* 31 })
        #expect(ledger.order == Array(0..<count) && !ledger.overlapped)
        var released = false
        for _ in 0..<10_000 where !released {
            released = combiner.tryCombining()
            if !released { await Task.yield() }
        }
        #expect(released, "the role was never given back")
        combiner.finishCombining()
    }

    /// A request that arrives while none runs runs at once, on its own task; while one runs
    /// (the fast path taken), another cannot take it.
    @Test func aLoneRequestRunsOnItsOwnTask() async {
        let combiner = RequestCombiner<Int>()
        let outcome = await combiner.run { 42 }
        #expect(outcome == 42)
        #expect(combiner.tryCombining())
        #expect(!combiner.tryCombining(), "two combiners at once")
        combiner.finishCombining()
        #expect(await combiner.run { 7 } == 7)
    }
}
