import CSQLite
import ChatAPI
import SQLiteSupport

extension SQLiteError {
    /// The `ChatError` a caller of the SDK sees for this failure on the cache file at `path`.
    func chatError(path: String) -> ChatError {
        if isBusy {
            return .invalidArgument(
                field: "persistence",
                reason: "the cache file '\(path)' is open in another client; use one file per user and device")
        }
        if code == SQLITE_NOTADB {
            return .invalidArgument(
                field: "persistence",
                reason: "'\(path)' is not a LiveChannels cache (not an SQLite database, or damaged beyond recognition)")
        }
        return .unavailable("the cache file '\(path)' failed: \(message)")
    }
}
