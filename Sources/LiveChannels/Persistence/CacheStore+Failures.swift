import CSQLite
import ChatAPI
import SQLiteSupport

/// Failures and what is reported about them: a failed read or write rebuilds a damaged file empty
/// (``isIntact`` turns false) or is kept as ``lastError`` until a write succeeds.
extension CacheStore {
    /// Whether the file still holds what it held at start (it was not rebuilt).
    var isIntact: Bool { file.withLock { !$0.wasRebuilt } }

    /// The last write failure (a full disk, say), if any; `nil` again once a write succeeds.
    var lastError: ChatError? { file.withLock { $0.lastError } }

    /// A failed read or write: a damaged file is rebuilt empty (it stores again); anything else
    /// is kept as ``lastError``. Whether what failed to be written should be written again (not
    /// after a rebuild: the rebuilt file no longer holds what came before it).
    @discardableResult
    func handle(_ error: any Error, in state: inout FileState) -> Bool {
        let isDamage = error is StoreDamage || (error as? SQLiteError)?.code == SQLITE_CORRUPT
        guard isDamage else {
            state.lastError =
                (error as? SQLiteError)?.chatError(path: path)
                ?? .invalidArgument(field: "persistence", reason: "the cache file '\(path)' failed: \(error)")
            return true
        }
        state.connection = nil
        state.wasRebuilt = true
        pending.withLock { $0.storesSequence = false }
        do {
            state.connection = try Self.rebuild(path, sizeChange: sizeChange)
        } catch {
            state.lastError =
                (error as? SQLiteError)?.chatError(path: path)
                ?? .invalidArgument(field: "persistence", reason: "the cache file '\(path)' failed: \(error)")
        }
        return false
    }
}
