/// Why a connection ended.
public enum DisconnectReason: Sendable, Hashable, Codable {
    /// The client called `disconnect()`.
    case requested
    /// The connection dropped (network, server, fault injection). The server stopped this
    /// device's reading; reconnect with `resumingAfter:` the last applied sequence number.
    case connectionLost(ChatError)
    /// Another connection of the same user and device took over (the same app running twice,
    /// a second client on one device id). Do not reconnect by yourself: the two would knock
    /// each other off without end. Connecting again takes over in turn.
    case replaced
}
