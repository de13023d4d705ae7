import CSQLite
import ChatAPI
import SQLiteSupport

extension SQLiteError {
    /// The `ChatError` a caller of the SDK sees for this failure on the cache file at `path`.
    /// Never `.unavailable` (that means the network): a full disk is `.limitExceeded`, anything
    /// else wrong with the file `.invalidArgument(field: "persistence")`; each names the file.
    func chatError(path: String) -> ChatError {
        if isBusy {
            return .invalidArgument(
                field: "persistence",
                reason: "the cache file '\(path)' is open in another client; use one file per user and device")
        }
        switch code {
        case SQLITE_NOTADB:
            return .invalidArgument(
                field: "persistence",
                reason: "'\(path)' is not a LiveChannels cache (not an SQLite database, or damaged beyond recognition)")
        case SQLITE_FULL:
            return .limitExceeded(
                "the disk holding the cache file '\(path)' is full (\(message)); what could not be written is kept and written once there is room"
            )
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_AUTH:
            return .invalidArgument(
                field: "persistence",
                reason:
                    "the cache file '\(path)' cannot be written: a read-only file or file system, or no permission (\(message))"
            )
        default:
            return .invalidArgument(field: "persistence", reason: "the cache file '\(path)' failed: \(message)")
        }
    }
}
