import ChatAPI

/// A frame a ``FrameOutbox`` queues and writes: encoded as a text frame's UTF-8 bytes when its
/// batch is written, on the channel's event loop.
protocol OutboxFrame: Sendable {
    /// Appends the frame's text (UTF-8) to `bytes`.
    /// - Throws: when the frame cannot be encoded; `bytes` is then as it was.
    func encode(appendingTo bytes: inout [UInt8]) throws
}

extension WireFrame: OutboxFrame {
    /// The frame as ``ChatAPI/WireCodec`` writes it (`encode(_:appendingTo:)`).
    func encode(appendingTo bytes: inout [UInt8]) throws {
        try WireCodec.encode(self, appendingTo: &bytes)
    }
}
