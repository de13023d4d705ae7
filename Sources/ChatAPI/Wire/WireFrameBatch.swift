/// Frames encoded one after another into one buffer: a network front's batch of writes, each
/// frame's text a stretch of ``bytes``.
///
/// Each frame's stretch is exactly what ``WireCodec/encodeBytes(_:)`` returns for it. What a
/// batch adds is memory between its frames: a channel that an earlier frame wrote, written again
/// as the very same value — the events of one change carry one channel value (a send's
/// `messageNew` and its sender's `readMarkerMoved`) — is copied from the earlier frame's bytes
/// instead of encoded again.
///
/// ```swift
/// var batch = WireFrameBatch()
/// for frame in frames { try batch.append(frame) }   // each frame ends at batch.count
/// let bytes = batch.takeBytes()
/// ```
///
/// - Complexity: ``append(_:)`` is O(size of the frame), amortized (the buffer grows by
///   doubling); a channel written before costs a copy of its JSON.
public struct WireFrameBatch {
    private var writer: WireJSONWriter

    /// An empty batch whose buffer holds `capacity` bytes before it grows.
    public init(capacity: Int = 2_048) {
        writer = WireJSONWriter(capacity: capacity)
    }

    /// The bytes of the frames appended so far, one after another.
    public var bytes: [UInt8] { writer.bytes }

    /// How many bytes the frames appended so far take: where the last one ends.
    public var count: Int { writer.count }

    /// Whether no frame (or only empty text) was appended.
    public var isEmpty: Bool { writer.count == 0 }

    /// Appends `frame`'s UTF-8 bytes (what ``WireCodec/encodeBytes(_:)`` returns for it).
    ///
    /// - Throws: as ``WireCodec/encode(_:)``; the batch is then as it was.
    public mutating func append(_ frame: WireFrame) throws {
        try WireCodec.encode(frame, into: &writer)
    }

    /// Appends `utf8`, a frame's text encoded elsewhere.
    public mutating func append(encoded utf8: some Sequence<UInt8>) {
        writer.append(topLevel: utf8)
    }

    /// The bytes of every frame appended, taken out of the batch (which is left empty, with no
    /// memory of the frames before).
    public mutating func takeBytes() -> [UInt8] {
        writer.takeBytes()
    }

    /// How many channels were copied from an earlier frame instead of encoded (for tests).
    package var channelsCopied: Int { writer.channelsCopied }
}
