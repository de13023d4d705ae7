import ChatAPI
import Testing

@Suite struct MessagePageQueryTests {
    typealias Position = MessagePageQuery.Position

    @Test(arguments: [
        (Position.latest, 3, 10, 8...10 as ClosedRange<Int>?),
        (.latest, 30, 10, 1...10),
        (.latest, 5, 0, nil),
        (.before(sequence: 8), 3, 10, 5...7),
        (.before(sequence: 3), 5, 10, 1...2),
        (.before(sequence: 1), 5, 10, nil),
        (.before(sequence: 50), 5, 10, 6...10),
        (.after(sequence: 4), 3, 10, 5...7),
        (.after(sequence: 8), 5, 10, 9...10),
        (.after(sequence: 10), 5, 10, nil),
        (.after(sequence: 0), 2, 10, 1...2),
    ])
    func sequenceRange(
        _ position: Position, _ limit: Int, _ last: Int, _ expected: ClosedRange<Int>?
    ) {
        #expect(
            MessagePageQuery(channelId: "c", position: position, limit: limit).sequenceRange(
                lastSequence: last) == expected)
    }

    /// Pages stop at the oldest message the server keeps (here 6 of 10).
    @Test(arguments: [
        (Position.latest, 3, 8...10 as ClosedRange<Int>?),
        (.latest, 30, 6...10),
        (.before(sequence: 8), 5, 6...7),
        (.before(sequence: 6), 5, nil),
        (.before(sequence: 2), 5, nil),
        (.after(sequence: 0), 2, 6...7),
        (.after(sequence: 4), 3, 6...8),
        (.after(sequence: 5), 3, 6...8),
        (.after(sequence: 7), 5, 8...10),
    ])
    func sequenceRangeAfterOlderMessagesWereDropped(
        _ position: Position, _ limit: Int, _ expected: ClosedRange<Int>?
    ) {
        #expect(
            MessagePageQuery(channelId: "c", position: position, limit: limit).sequenceRange(
                lastSequence: 10, oldestSequence: 6) == expected)
    }

    @Test func validation() throws {
        try MessagePageQuery(channelId: "c").validate()
        #expect(throws: ChatError.self) {
            try MessagePageQuery(channelId: "c", limit: 0).validate()
        }
        #expect(throws: ChatError.self) {
            try MessagePageQuery(channelId: "c", position: .after(sequence: -1)).validate()
        }
        for position in [Position.latest, .before(sequence: 4), .after(sequence: 2)] {
            let query = MessagePageQuery(channelId: "c", position: position, limit: 7)
            #expect(try roundTrip(query) == query)
        }
    }
}
