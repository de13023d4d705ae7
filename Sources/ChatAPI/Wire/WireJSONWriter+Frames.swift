/// The hot frames whole, as `WireCodec`'s `FrameBox` writes them: `type` first, then the
/// frame's fields (`Docs/Protocol.md`). `hello`, `welcome` and `request` frames are not here:
/// they are rare (one per connection, or sent by clients), so `JSONEncoder` keeps them.
extension WireJSONWriter {
    /// Writes `{"type":"event","envelope":{"sequence":N,"event":EVENT}}` around `event`, the
    /// event's JSON written before (shared by the envelopes of one change).
    ///
    /// - Complexity: O(size of the frame), a copy of `event`.
    package mutating func eventFrame(sequence: Int, event: [UInt8]) {
        beginObject()
        field("type", "event")
        key("envelope")
        beginObject()
        field("sequence", sequence)
        key("event")
        value(encoded: event)
        endObject()
        endObject()
    }

    /// Writes `{"type":"response","id":ID,"envelope":ENVELOPE}`.
    ///
    /// - Throws: ``WireJSONWriter/Unwritable`` for a value `JSONEncoder` must decide on.
    /// - Complexity: O(size of the frame).
    package mutating func responseFrame(id: Int, envelope: ResponseEnvelope) throws(Unwritable) {
        beginObject()
        field("type", "response")
        field("id", id)
        key("envelope")
        try responseEnvelope(envelope)
        endObject()
    }

    /// Writes `{"type":"failure","id":ID,"error":ERROR}`.
    ///
    /// - Throws: ``WireJSONWriter/Unwritable`` for a `retryAfter` that is not finite.
    /// - Complexity: O(size of the frame).
    package mutating func failureFrame(id: Int, error: ChatError) throws(Unwritable) {
        beginObject()
        field("type", "failure")
        field("id", id)
        key("error")
        try self.error(error)
        endObject()
    }
}
