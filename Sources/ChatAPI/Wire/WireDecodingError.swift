/// Why a text frame is not a frame of the protocol, and so what the receiver does with it.
public enum WireDecodingError: Error, Sendable, Hashable {
    /// Not this protocol — not a JSON object, no `type`, an unknown `type`, or a missing or
    /// malformed field of a frame other than a request's `request`. A server closes the
    /// connection with ``WireCloseCode/protocolError``.
    case notProtocol(String)
    /// A `request` frame whose `id` is not an integer from 0 to 2^53 − 1: close with
    /// ``WireCloseCode/protocolError``.
    case badRequestId(String)
    /// A `request` frame with a valid `id` whose `request` cannot be decoded: answer a `failure`
    /// with `error` (an ``ChatError/invalidArgument(field:reason:)``) for that id; the
    /// connection stays usable.
    case badRequest(id: Int, error: ChatError)
}

extension WireDecodingError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notProtocol(let reason): "not a frame of protocol \(WireProtocol.version): \(reason)"
        case .badRequestId(let reason): "a request id must be an integer from 0 to 2^53 - 1: \(reason)"
        case .badRequest(let id, let error): "request \(id) cannot be decoded: \(error)"
        }
    }
}
