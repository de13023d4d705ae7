/// Constants of the wire protocol that both sides share.
public enum WireProtocol {
    /// The protocol version this package speaks. A change of any encoding means a new version.
    public static let version = 1

    /// The path a client connects to: `GET /v1/connect?device=DEVICE_ID`, upgraded to WebSocket.
    public static let connectPath = "/v1/connect"

    /// The largest request id: 2^53 − 1, the largest integer every JSON implementation holds
    /// exactly (a JavaScript `Number`).
    public static let maximumRequestId = (1 << 53) - 1
}
