/// The hot frames whole, as `WireCodec`'s `FrameBox` writes them: `type` first, then the
/// frame's fields (`Docs/Protocol.md`). `hello` and `welcome` frames are not here: one per
/// connection, `JSONEncoder` keeps them. `request` frames are in `WireJSONWriter+Requests.swift`.
extension WireJSONWriter {
    /// Writes `{"type":"event","envelope":{"sequence":N,"event":EVENT}}` around `event`, the
    /// event's JSON written before (shared by the envelopes of one change).
    ///
    /// - Complexity: O(size of the frame), a copy of `event`.
    package mutating func eventFrame(sequence: Int, event: [UInt8]) {
        eventEnvelope(sequence: sequence) { $0.value(encoded: event) }
    }

    /// Writes `{"type":"event","envelope":{"sequence":N,"event":EVENT}}`, the event written in
    /// place: for an event one device receives, with no JSON of its own to share.
    ///
    /// - Throws: ``WireJSONWriter/Unwritable`` for an event `JSONEncoder` must decide on.
    /// - Complexity: O(size of the frame).
    package mutating func eventFrame(sequence: Int, event: ChatEvent) throws(Unwritable) {
        try eventEnvelope(sequence: sequence) { writer throws(Unwritable) in try writer.event(event) }
    }

    /// An event frame around what `event` writes.
    private mutating func eventEnvelope<Failure: Error>(
        sequence: Int, _ event: (inout WireJSONWriter) throws(Failure) -> Void
    ) throws(Failure) {
        beginObject()
        field("type", "event")
        key("envelope")
        beginObject()
        field("sequence", sequence)
        key("event")
        try event(&self)
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
