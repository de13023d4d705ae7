import Foundation
import Locking

/// The JSON of one event, computed at most once for every envelope that shares it: the server
/// gives every recipient with the same view of a change (the same event value) envelopes that
/// share one of these, so a change delivered to a thousand connections is encoded once, not a
/// thousand times. Only the per-device `sequence` is written per frame (``WireCodec``).
///
/// Never decoded, never compared: envelopes that share it are equal in their event by
/// construction, and an envelope whose event is replaced drops it.
///
/// - Threading: thread-safe; the first caller of ``json(encoding:)`` encodes, concurrent ones
///   wait for it (a `Locking.Lock` of rank `leaf`: held only by the encoding, which takes no
///   other lock).
package final class SharedEventEncoding: Sendable {
    /// The JSON once encoded, as UTF-8 bytes. Lock order: a leaf (see `LockRank`).
    private let encoded = Lock<[UInt8]?>(nil, rank: .leaf)

    package init() {}

    /// The event's JSON (UTF-8): `encode()`'s result on the first call, the same bytes
    /// afterwards (one buffer, shared by reference). A call that throws caches nothing.
    func json<E: Error>(encoding encode: () throws(E) -> [UInt8]) throws(E) -> [UInt8] {
        try encoded.withLock { encoded throws(E) -> [UInt8] in
            if let encoded { return encoded }
            let fresh = try encode()
            encoded = fresh
            return fresh
        }
    }
}
