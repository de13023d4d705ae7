import Foundation
import Testing

@testable import ChatServer

@Suite struct NumberedLogTests {
    @Test func keepsTheNewestElementsAndNumbersWithoutGaps() {
        var log = NumberedLog<String>(capacity: 3)
        #expect(log.elements(after: 0) == [])
        for letter in ["a", "b", "c", "d", "e"] { log.append(at: .distantPast) { "\(letter)\($0)" } }
        #expect(log.lastSequence == 5 && log.firstSequence == 3)
        #expect(log.elements(after: 2) == ["c3", "d4", "e5"])
        #expect(log.elements(after: 4) == ["e5"])
        #expect(log.elements(after: 5) == [])
    }

    @Test func refusesWhatItNoLongerHoldsOrNeverIssued() {
        var log = NumberedLog<Int>(capacity: 2)
        for _ in 0..<4 { log.append(at: .distantPast) { $0 } }
        #expect(log.elements(after: 1) == nil)
        #expect(log.elements(after: 6) == nil)
        #expect(log.elements(after: -1) == nil)
    }
}

@Suite struct NumberedLogTrimTests {
    @Test func trimDropsWhatIsOlderThanTheCutoffAndKeepsNumbering() {
        var log = NumberedLog<Int>(capacity: 100)
        let start = Date(timeIntervalSince1970: 0)
        for second in 0..<10 { log.append(at: start + Double(second)) { $0 } }
        log.trim(appendedBefore: start + 4)
        #expect(log.count == 6 && log.firstSequence == 5 && log.lastSequence == 10)
        #expect(log.elements(after: 3) == nil)
        #expect(log.elements(after: 4) == [5, 6, 7, 8, 9, 10])
        log.trim(appendedBefore: start + 100)
        #expect(log.count == 0 && log.elements(after: 10) == [])
        log.append(at: start + 200) { $0 }
        #expect(log.elements(after: 10) == [11])
    }

    @Test func capacityAndTrimTogetherKeepOrderAcrossCompactions() {
        var log = NumberedLog<Int>(capacity: 5)
        let start = Date(timeIntervalSince1970: 0)
        for second in 0..<1_000 {
            log.append(at: start + Double(second)) { $0 }
            if second.isMultiple(of: 7) { log.trim(appendedBefore: start + Double(second - 2)) }
            #expect(log.elements(after: log.firstSequence - 1) == Array(log.firstSequence...log.lastSequence))
            #expect(log.count <= 5)
        }
    }
}

@Suite struct NumberedLogAccessTests {
    @Test func readsAndChangesHeldElementsByNumber() {
        var log = NumberedLog<String>(capacity: 3)
        #expect(log.oldest == nil && !log.isFull && log[sequence: 1] == nil)
        for letter in ["a", "b", "c", "d"] { log.append(at: .distantPast) { "\(letter)\($0)" } }
        #expect(log.isFull && log.oldest == "b2")
        #expect(
            log[sequence: 1] == nil && log[sequence: 2] == "b2" && log[sequence: 4] == "d4" && log[sequence: 5] == nil)
        #expect(
            log.modify(sequence: 3) {
                $0 += "!"; return $0.count
            } == 3)
        #expect(log.modify(sequence: 1) { $0 = "x" } == nil)
        #expect(log.elements == ["b2", "c3!", "d4"])
    }

    @Test func rangesAreClampedToWhatIsHeld() {
        var log = NumberedLog<Int>(capacity: 4)
        for _ in 0..<10 { log.append(at: .distantPast) { $0 } }
        #expect(log.elements(in: 1...20) == [7, 8, 9, 10])
        #expect(log.elements(in: 8...9) == [8, 9])
        #expect(log.elements(in: 1...6).isEmpty && log.elements(in: 11...12).isEmpty)
    }

    @Test func numberingMatchesAcrossCompactions() {
        var log = NumberedLog<Int>(capacity: 5)
        for _ in 0..<1_000 {
            log.append(at: .distantPast) { $0 }
            for sequence in log.firstSequence...log.lastSequence { #expect(log[sequence: sequence] == sequence) }
        }
    }
}
