/// An event with its position in the receiving device's event stream.
///
/// Sequence numbers count the events sent to one (user, device) pair: 1, 2, 3 … with no gaps,
/// continuing across reconnections that resume. A client remembers the last one it applied,
/// ignores envelopes at or below it (duplicates) and passes it to
/// `ChatTransport.connect(resumingAfter:)` to catch up.
public struct EventEnvelope: Sendable, Hashable, Codable {
    /// The position in the device's stream.
    public var sequence: Int
    /// The event.
    public var event: ChatEvent

    /// An envelope; `sequence` is 1 or more.
    public init(sequence: Int, event: ChatEvent) {
        self.sequence = sequence
        self.event = event
    }
}
