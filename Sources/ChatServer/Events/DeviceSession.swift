import ChatAPI
import Foundation

/// One device of one user as the event hub sees it: its event numbering and replay log (kept
/// across connections, so it can resume), and its live connection, if any.
struct DeviceSession: Sendable {
    /// A live connection: where its events go.
    struct Link: Sendable {
        let id: UInt64
        let continuation: AsyncStream<ConnectionEvent>.Continuation
    }

    var log: EventLog<EventEnvelope>
    var link: Link?
    /// Envelopes logged but held back by an event-delay fault, oldest first, with the time
    /// they may go.
    var held: [(envelope: EventEnvelope, until: Date)] = []

    init(logCapacity: Int) {
        log = EventLog(capacity: logCapacity)
    }
}
