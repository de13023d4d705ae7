import Testing

@testable import ChatServer

@Suite struct EventLogTests {
    @Test func keepsTheNewestElementsAndNumbersWithoutGaps() {
        var log = EventLog<String>(capacity: 3)
        #expect(log.elements(after: 0) == [])
        for letter in ["a", "b", "c", "d", "e"] { log.append { "\(letter)\($0)" } }
        #expect(log.lastSequence == 5 && log.firstSequence == 3)
        #expect(log.elements(after: 2) == ["c3", "d4", "e5"])
        #expect(log.elements(after: 4) == ["e5"])
        #expect(log.elements(after: 5) == [])
    }

    @Test func refusesWhatItNoLongerHoldsOrNeverIssued() {
        var log = EventLog<Int>(capacity: 2)
        for _ in 0..<4 { log.append { $0 } }
        #expect(log.elements(after: 1) == nil)
        #expect(log.elements(after: 6) == nil)
        #expect(log.elements(after: -1) == nil)
    }
}
