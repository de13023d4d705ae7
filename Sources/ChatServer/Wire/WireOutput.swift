/// What a ``WireSession`` asks its network front to do.
public enum WireOutput: Sendable, Hashable {
    /// Send one text frame.
    case text(String)
    /// Close the connection with `code` and `reason`; nothing more is sent.
    case close(code: Int, reason: String)
}
