import ChatAPI

/// A frame a ``FrameQueue`` queues and writes: encoded as a text frame's UTF-8 bytes when its
/// batch is written, on the channel's event loop, into the batch's one buffer.
protocol QueuedFrame: Sendable {
    /// Appends the frame's text (UTF-8) to `batch`.
    /// - Throws: when the frame cannot be encoded; `batch` is then as it was.
    func encode(appendingTo batch: inout WireFrameBatch) throws
}

extension WireFrame: QueuedFrame {
    /// The frame as ``ChatAPI/WireCodec`` writes it (a channel an earlier frame of the batch
    /// wrote is copied from there: see ``ChatAPI/WireFrameBatch``).
    func encode(appendingTo batch: inout WireFrameBatch) throws {
        try batch.append(self)
    }
}
