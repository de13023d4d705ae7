/// What a ``WireSession`` asks its network front to do.
public enum WireOutput: Sendable, Hashable {
    /// Send one text frame: its UTF-8 bytes, as ``WireCodec/encodeBytes(_:)`` wrote them (a
    /// network front copies them into its socket's buffer; no `String` is made of them).
    case text([UInt8])
    /// Close the connection with `code` and `reason`; nothing more is sent.
    case close(code: Int, reason: String)
}
