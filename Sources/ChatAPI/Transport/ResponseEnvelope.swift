/// A response with its place in the requesting device's event stream: what
/// ``ChatTransport/send(_:)`` returns.
///
/// The server fills both stamps under the same lock as it computes the response, so they
/// describe exactly the state the response was read from. Reading a response's fields through
/// the envelope works as on the response itself (`envelope.channelValue`).
@dynamicMemberLookup
public struct ResponseEnvelope: Sendable, Hashable, Codable {
    /// The sequence number of the last event queued for the requesting device when the
    /// response's state was read (0 if none): the response belongs right after that event.
    /// Every event the request caused is at or before it.
    public var position: Int
    /// The server's revision when the response was read: every entity value in it has a
    /// ``Versioned/version`` at or below it, and a value with a higher version is newer than
    /// anything in the response.
    public var revision: Int
    /// The response.
    public var response: ChatResponse

    /// An envelope, as a transport reports it.
    public init(position: Int, revision: Int, response: ChatResponse) {
        self.position = position
        self.revision = revision
        self.response = response
    }

    /// The response's accessors (`channelValue`, `memberPageValue`, …).
    public subscript<Value>(dynamicMember keyPath: KeyPath<ChatResponse, Value>) -> Value {
        response[keyPath: keyPath]
    }
}
