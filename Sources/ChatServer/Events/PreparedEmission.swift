import ChatAPI

/// An emission with what rendering it needs looked up once (not once per recipient): the
/// channel record its audience and subject refer to, and the message it is about.
struct PreparedEmission: Sendable {
    var emission: Emission
    var channel: ChannelRecord?
    var message: Message?

    var change: StateChange { emission.change }
    var audience: Audience { emission.audience }
}
