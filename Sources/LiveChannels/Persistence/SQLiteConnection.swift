import CSQLite
import Foundation

/// One connection to an SQLite file: statements (prepared once, cached by SQL text),
/// transactions, and errors as ``SQLiteError``.
///
/// Not thread-safe and not `Sendable`: its owner (``CacheStore``) keeps it under a lock and uses
/// it from one thread at a time. Opened without SQLite's own mutexes for that reason.
final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the file at `path`.
    /// - Throws: ``SQLiteError`` when the file cannot be opened.
    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements with no parameters and no rows to read.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text)
        }
    }

    /// The statement for `sql`, prepared on first use and then reused.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else { throw error(code) }
        let statement = SQLiteStatement(prepared, connection: self)
        statements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (0 when there is no row).
    func integer(_ sql: String, _ values: [any SQLiteBindable] = []) throws -> Int {
        var result = 0
        var first = true
        try statement(sql).query(values) { row in
            if first { result = row.int(at: 0) }
            first = false
        }
        return result
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`): committed if it returns, rolled back
    /// if it throws.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The error for a result code, with SQLite's message.
    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}
