import Locking
import SQLiteSupport

/// How much the stored values' total size changed through updates since the writer last took
/// it. Updates set a row's size with the SQL function ``function`` (`size = lc_resized(size, ?)`),
/// which adds the row's change here, so an update needs no trigger; the writer moves the sum
/// into `meta` (``CacheSchema``) in the same transaction. Inserts and deletes are counted by
/// triggers.
///
/// Thread-safe (atomic); O(1) per row.
final class StoredSizeChange: Sendable {
    /// The SQL function's name.
    static let function = "lc_resized"

    private let bytes = AtomicValue<Int>(0)

    /// Defines ``function`` on `connection`: `lc_resized(old, new)` adds `new - old` and returns
    /// `new`.
    /// - Throws: ``SQLiteError``.
    func define(on connection: SQLiteConnection) throws {
        try connection.defineFunction(Self.function) { [self] old, new in
            bytes.add(new &- old)
            return new
        }
    }

    /// The change counted since the last call, and a new count from 0. Call it before a write
    /// (dropping what a rolled-back write counted) and before its commit (to store the change).
    func take() -> Int {
        bytes.exchange(0)
    }
}
