import ChatAPI
import Locking
import TestSupport
import Testing

@testable import LiveChannels

/// The one ordered-request chain: operations run one at a time, in submission order, whatever
/// their durations, and a failure does not stop the chain.
@Suite(.timeLimit(.minutes(1))) struct RequestSequenceTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func operationsRunOneAtATimeInSubmissionOrder(seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        let sequence = RequestSequence()
        let log = Lock<[Int]>([])
        let running = Lock(0)
        var tasks: [Task<Int, any Error>] = []
        for index in 0..<200 {
            let yields = Int.random(in: 0..<5, using: &generator)
            let fails = Int.random(in: 0..<7, using: &generator) == 0
            tasks.append(
                sequence.submit {
                    let overlapping = running.withLock { running in
                        running += 1
                        return running
                    }
                    #expect(overlapping == 1, "seed \(seed): operation \(index) overlapped another")
                    for _ in 0..<yields { await Task.yield() }
                    log.withLock { $0.append(index) }
                    running.withLock { $0 -= 1 }
                    if fails { throw ChatError.unavailable("failed \(index)") }
                    return index * 2
                })
        }
        for (index, task) in tasks.enumerated() {
            switch await task.result {
            case .success(let value): #expect(value == index * 2)
            case .failure(let error): #expect(error as? ChatError == .unavailable("failed \(index)"))
            }
        }
        #expect(log.withLock { $0 } == Array(0..<200), "seed \(seed)")
    }
}
