import ChatAPI
import HTTPTypes

/// Why a connect (`GET /v1/connect`) is refused, as the protocol answers it: an HTTP status and
/// the JSON body `{"error":CHAT_ERROR}`.
public struct ConnectRefusal: Error, Sendable {
    /// The error the client is told.
    public var error: ChatError
    /// The HTTP status of the refusal.
    public var status: HTTPResponse.Status
    /// The `reason` label under which `chat_rejections_total` counts a refused upgrade (the
    /// plain HTTP request's refusals are answered, not counted).
    public var metricReason: String

    public init(error: ChatError, status: HTTPResponse.Status, metricReason: String) {
        self.error = error
        self.status = status
        self.metricReason = metricReason
    }

    /// `{"error":CHAT_ERROR}`, written as the wire protocol writes errors.
    var body: [UInt8] { WireCodec.refusalBody(error) }
}
