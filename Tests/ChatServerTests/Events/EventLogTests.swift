import ChatAPI
import Foundation
import TestSupport
import Testing

@testable import ChatServer

/// A device's replay log, numbered 1, 2, 3 … after its base: "everything after N" is exactly the
/// events numbered after N, or `nil` once one of them may have been dropped (after a retention
/// trim, numbers below the first event kept count as dropped) — checked against a plain model
/// over seeded runs of appends, capacity drops and retention trims.
@Suite struct EventLogTests {
    private static func envelope(_ sequence: Int) -> EventEnvelope {
        EventEnvelope(sequence: sequence, event: .typingStarted(channelId: "c", userId: "u\(sequence)"))
    }

    @Test func aResumeAfterADroppedEventIsRefused() {
        var log = EventLog(capacity: 3, base: 10)
        let start = Date(timeIntervalSince1970: 0)
        for offset in 0..<4 { log.append(at: start + Double(offset)) { Self.envelope($0) } }
        #expect(log.lastSequence == 14)
        // 11 was dropped by the capacity: after 10 is lost, after 11 is 12…14.
        #expect(log.elements(after: 10) == nil)
        #expect(log.elements(after: 11)?.map(\.sequence) == [12, 13, 14])
        #expect(log.elements(after: 14)?.isEmpty == true)
        #expect(log.elements(after: 15) == nil)
    }

    @Test func matchesAModelOverSeededRuns() {
        let seed = SeededGenerator.testSeed(4_401)
        var random = SeededGenerator(seed: seed)
        for run in 0..<200 {
            let capacity = 1 + Int(random.next() % 6)
            let base = Int(random.next() % 100)
            var log = EventLog(capacity: capacity, base: base)
            // The model: every event given (number, time), and the newest number dropped.
            var given: [(number: Int, time: Double)] = []
            var droppedThrough = base
            var clock = 0.0
            var last = base
            for _ in 0..<40 {
                clock += Double(random.next() % 3)
                if random.next() % 4 == 0 {
                    let cutoff = clock - Double(random.next() % 5)
                    log.trim(appendedBefore: Date(timeIntervalSince1970: cutoff))
                    let kept = given.filter { $0.time >= cutoff }
                    // A trim is conservative: it counts as held only from the first event it keeps.
                    if kept.count < given.count {
                        droppedThrough = kept.first.map { $0.number - 1 } ?? given.last!.number
                    }
                    given = kept
                } else {
                    last += 1
                    log.append(at: Date(timeIntervalSince1970: clock)) { Self.envelope($0) }
                    given.append((last, clock))
                    if given.count > capacity {
                        droppedThrough = given.removeFirst().number
                    }
                }
                let probe = base - 1 + Int(random.next() % UInt64(last - base + 3))
                let expected: [Int]? =
                    probe < droppedThrough || probe > last || probe < 0
                    ? nil : given.map(\.number).filter { $0 > probe }
                #expect(
                    log.elements(after: probe)?.map(\.sequence) == expected,
                    "seed \(seed), run \(run): after \(probe) (dropped through \(droppedThrough), last \(last))")
                #expect(log.lastSequence == last)
            }
        }
    }
}
