import CSQLite

/// A failed SQLite call: the primary result code and SQLite's message.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...), extended bits removed.
    package let code: Int32
    package let message: String

    package init(code: Int32, message: String) {
        self.code = code & 0xFF
        self.message = message
    }

    /// Another connection holds the file (a second client on the same file).
    package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// The file is damaged, or not a database at all.
    package var isDamaged: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// The disk or the file refuses writes: full (`SQLITE_FULL`), read-only (`SQLITE_READONLY`,
    /// `SQLITE_PERM`, `SQLITE_CANTOPEN`) or failing (`SQLITE_IOERR`).
    package var isDiskFault: Bool {
        [SQLITE_FULL, SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_IOERR].contains(code)
    }

    package var description: String { "SQLite error \(code): \(message)" }
}
