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
    public var event: ChatEvent {
        didSet { sharedEncoding = nil }
    }
    /// The event's JSON, shared with the other envelopes of the same event (set by the server
    /// when it delivers one change to many devices; see ``SharedEventEncoding``). Not part of
    /// the value: ignored by `==`, `hash(into:)` and `Codable`; dropped when `event` changes.
    package private(set) var sharedEncoding: SharedEventEncoding?

    private enum CodingKeys: String, CodingKey { case sequence, event }

    /// An envelope; `sequence` is 1 or more.
    public init(sequence: Int, event: ChatEvent) {
        self.sequence = sequence
        self.event = event
    }

    /// An envelope whose event's JSON is shared with the other envelopes made with `encoding`
    /// (every one of them must carry the same `event`); with `nil`, an envelope of its own.
    package init(sequence: Int, event: ChatEvent, sharing encoding: SharedEventEncoding?) {
        self.sequence = sequence
        self.event = event
        self.sharedEncoding = encoding
    }

    public static func == (lhs: EventEnvelope, rhs: EventEnvelope) -> Bool {
        lhs.sequence == rhs.sequence && lhs.event == rhs.event
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sequence)
        hasher.combine(event)
    }
}
