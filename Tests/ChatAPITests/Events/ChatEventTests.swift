import ChatAPI
import Foundation
import Testing

@Suite struct ChatEventTests {
    static func ordinal(_ event: ChatEvent) -> Int {
        switch event {
        case .channelCreated: 0
        case .channelUpdated: 1
        case .channelDeleted: 2
        case .memberAdded: 3
        case .memberRemoved: 4
        case .memberBanned: 5
        case .memberUnbanned: 6
        case .memberMuted: 7
        case .memberUnmuted: 8
        case .memberRoleChanged: 9
        case .messageNew: 10
        case .messageUpdated: 11
        case .messageDeleted: 12
        case .readMarkerMoved: 13
        case .typingStarted: 14
        case .typingStopped: 15
        case .userUpdated: 16
        case .presenceChanged: 17
        }
    }
    static let caseCount = 18

    @Test func fixturesCoverEveryCase() {
        #expect(Set(Fixtures.events.map(Self.ordinal)) == Set(0..<Self.caseCount))
    }

    @Test(arguments: Fixtures.events)
    func envelopeRoundTrip(_ event: ChatEvent) throws {
        let envelope = EventEnvelope(sequence: 42, event: event)
        #expect(try roundTrip(envelope) == envelope)
        #expect(try roundTrip(event) == event)
    }

    @Test(arguments: Fixtures.events)
    func channelIdNamesTheChannel(_ event: ChatEvent) {
        switch event {
        case .userUpdated, .presenceChanged:
            #expect(event.channelId == nil)
        default:
            #expect(event.channelId == "c1")
        }
    }
}
