/// One message of the wire protocol (version ``WireProtocol/version``): one WebSocket text frame
/// holding one JSON object whose `"type"` names the case.
///
/// | direction | JSON |
/// |---|---|
/// | client → server, first | `{"type":"hello","protocol":1,"resumeAfter":N}` |
/// | server → client | `{"type":"welcome","protocol":1,"result":CONNECT_RESULT}` |
/// | client → server | `{"type":"request","id":ID,"request":CHAT_REQUEST}` |
/// | server → client | `{"type":"response","id":ID,"envelope":RESPONSE_ENVELOPE}` |
/// | server → client | `{"type":"failure","id":ID,"error":CHAT_ERROR}` |
/// | server → client | `{"type":"event","envelope":EVENT_ENVELOPE}` |
///
/// The payloads are the `ChatAPI` types in their `Codable` form, dates as seconds since 1970.
/// ``WireCodec`` reads and writes frames; `Docs/Protocol.md` shows each with an example.
public enum WireFrame: Sendable, Hashable {
    /// The client's first frame: the protocol it speaks and the sequence number of the last
    /// event it applied (`nil` for a fresh start), as `ChatTransport.connect(resumingAfter:)`.
    case hello(protocolVersion: Int, resumeAfter: Int?)
    /// The server's answer to `hello`: the connection is open.
    case welcome(protocolVersion: Int, result: ConnectResult)
    /// A request; `id` is the client's, from 0 to 2^53 − 1, echoed by its answer.
    case request(id: Int, request: ChatRequest)
    /// The answer to request `id`, with its place in the device's event stream.
    case response(id: Int, envelope: ResponseEnvelope)
    /// The error request `id` failed with; nothing changed.
    case failure(id: Int, error: ChatError)
    /// An event of the device's stream.
    case event(EventEnvelope)

    /// The frame's `"type"`.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .welcome: "welcome"
        case .request: "request"
        case .response: "response"
        case .failure: "failure"
        case .event: "event"
        }
    }
}
