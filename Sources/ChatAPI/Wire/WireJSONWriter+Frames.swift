/// The hot frames whole, as `WireCodec`'s `FrameBox` writes them: `type` first, then the
/// frame's fields (`Docs/Protocol.md`). `hello` and `welcome` frames are not here: one per
/// connection, `JSONEncoder` keeps them. `request` frames are in `WireJSONWriter+Requests.swift`.
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
        try numberedFrame("response", id: id, "envelope") { writer throws(Unwritable) in
            try writer.responseEnvelope(envelope)
        }
    }

    /// Writes `{"type":"failure","id":ID,"error":ERROR}`.
    ///
    /// - Throws: ``WireJSONWriter/Unwritable`` for a `retryAfter` that is not finite.
    /// - Complexity: O(size of the frame).
    package mutating func failureFrame(id: Int, error: ChatError) throws(Unwritable) {
        try numberedFrame("failure", id: id, "error") { writer throws(Unwritable) in try writer.error(error) }
    }

    /// Writes `{"type":TYPE,"id":ID,"KEY":VALUE}`, `value` writing VALUE: the frames numbered by
    /// a request's `id` (the request itself, its response or failure).
    package mutating func numberedFrame(
        _ type: String, id: Int, _ key: StaticString,
        _ value: (inout WireJSONWriter) throws(Unwritable) -> Void
    ) throws(Unwritable) {
        beginObject()
        field("type", type)
        field("id", id)
        self.key(key)
        try value(&self)
        endObject()
    }
}
