import ChatAPI
import Foundation
import Testing

@Suite struct ConnectionTypesTests {
    @Test(arguments: [ConnectResult.Status.new, .resumed, .resyncRequired])
    func connectResultRoundTrip(_ status: ConnectResult.Status) throws {
        let result = ConnectResult(status: status, currentUser: Fixtures.user, lastSequence: 17)
        #expect(try roundTrip(result) == result)
    }

    @Test func connectionEventsRoundTrip() throws {
        let events: [ConnectionEvent] = [
            .event(EventEnvelope(sequence: 1, event: .userUpdated(Fixtures.user))),
            .disconnected(.requested),
            .disconnected(.connectionLost(.unavailable("socket closed"))),
        ]
        for event in events {
            #expect(try roundTrip(event) == event)
        }
    }
}
