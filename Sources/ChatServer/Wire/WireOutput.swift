import ChatAPI

/// What a ``WireSession`` asks its network front to do.
public enum WireOutput: Sendable, Hashable {
    /// Send one text frame holding `frame`, as ``ChatAPI/WireCodec`` encodes it
    /// (`encodeBytes(_:)`, or `encode(_:appendingTo:)` to write several frames from one buffer).
    /// The network front encodes it when it writes it — on the thread that writes the socket,
    /// into the buffer it writes from. A frame that cannot be encoded (`WireCodec` throws only
    /// for a number JSON cannot hold, which no server value has) is not sent, and the front
    /// closes the connection with ``ChatAPI/WireCloseCode/internalError``.
    case frame(WireFrame)
    /// Close the connection with `code` and `reason`; nothing more is sent.
    case close(code: Int, reason: String)
}
