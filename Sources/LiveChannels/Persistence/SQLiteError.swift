import CSQLite
import ChatAPI

/// A failed SQLite call: the primary result code and SQLite's message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...), extended bits removed.
    let code: Int32
    let message: String

    init(code: Int32, message: String) {
        self.code = code & 0xFF
        self.message = message
    }

    /// Another connection holds the file (a second client on the same file).
    var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// The file is damaged, or not a database at all.
    var isDamaged: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    var description: String { "SQLite error \(code): \(message)" }

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
