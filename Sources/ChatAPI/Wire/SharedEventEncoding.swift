import Foundation

/// The JSON of one event, computed at most once for every envelope that shares it: the server
/// gives every recipient with the same view of a change (the same event value) envelopes that
/// share one of these, so a change delivered to a thousand connections is encoded once, not a
/// thousand times. Only the per-device `sequence` is written per frame (``WireCodec``).
///
/// Never decoded, never compared: envelopes that share it are equal in their event by
/// construction, and an envelope whose event is replaced drops it.
///
/// - Threading: thread-safe; the first caller of ``json(encoding:)`` encodes, concurrent ones
///   wait for it (one lock, held only by the encoding).
package final class SharedEventEncoding: @unchecked Sendable {
    // @unchecked: `encoded` is only read or written under `lock`.
    private let lock = NSLock()
    private var encoded: String?

    package init() {}

    /// The event's JSON: `encode()`'s result on the first call, the same string afterwards.
    /// A call that throws caches nothing.
    func json(encoding encode: () throws -> String) rethrows -> String {
        lock.lock()
        defer { lock.unlock() }
        if let encoded { return encoded }
        let fresh = try encode()
        encoded = fresh
        return fresh
    }
}
