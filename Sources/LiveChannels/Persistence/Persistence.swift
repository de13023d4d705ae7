import Foundation

/// Where a ``ChatClient`` keeps its cache.
///
/// ```swift
/// let client = ChatClient(transport: transport, persistence: .sqlite(url))
/// ```
public enum Persistence: Sendable, Hashable {
    /// In memory only: every launch starts empty (the default).
    case inMemory
    /// In memory, written behind to an SQLite file and loaded from it at start, so live handles
    /// show the last-known data at once (`dataStatus == .local`) and offline. One file per user
    /// and device; `limits` bound what the file holds.
    case sqlite(URL, limits: PersistenceLimits = PersistenceLimits())
}
