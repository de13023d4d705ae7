import CSQLite

/// One connection to an SQLite file: statements (prepared once, cached by SQL text),
/// transactions, and errors as ``SQLiteError``.
///
/// Not thread-safe and not `Sendable`: its owner (the client's cache store, the server's state
/// store) uses it from one thread at a time. Opened without SQLite's own mutexes for that reason.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the file at `path`.
    /// - Throws: ``SQLiteError`` when the file cannot be opened.
    package init(path: String) throws {
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
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text)
        }
    }

    /// The statement for `sql`, prepared on first use and then reused.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else { throw error(code) }
        let statement = SQLiteStatement(prepared, connection: self)
        statements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (0 when there is no row).
    package func integer(_ sql: String, _ values: [any SQLiteBindable] = []) throws -> Int {
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
    package func transaction<Result>(_ body: () throws -> Result) throws -> Result {
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

    /// Brings a file's schema from version `current` (its `user_version`; 0 for an empty file,
    /// which is then stamped with `applicationId`) to `version`, running `migrations[n]` for
    /// every version n after `current` in order, all in one transaction: a file is either
    /// migrated whole or left as it was.
    package func migrate(applicationId: Int, to version: Int, from current: Int, migrations: [Int: String]) throws {
        try transaction {
            if current == 0 { try execute("PRAGMA application_id = \(applicationId)") }
            for target in (current + 1)...max(current + 1, version) where target <= version {
                guard let sql = migrations[target] else { continue }
                try execute(sql)
            }
            try execute("PRAGMA user_version = \(version)")
        }
    }

    /// Makes `name(a, b)` callable in SQL on this connection: an integer function of two
    /// integers computed by `body`, on the thread running the statement, every time SQLite
    /// evaluates it (not marked deterministic, so never factored out). Only top-level SQL may call
    /// it, not triggers or views (`SQLITE_DIRECTONLY`). `body` lives as long as the connection.
    /// - Throws: ``SQLiteError`` when SQLite refuses the definition.
    package func defineFunction(_ name: String, _ body: @escaping (Int, Int) -> Int) throws {
        let function = Unmanaged.passRetained(SQLiteFunction(body)).toOpaque()
        // On failure SQLite calls the destructor itself.
        let code = sqlite3_create_function_v2(
            handle, name, 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, function,
            { context, _, arguments in
                guard let context, let arguments, let first = arguments[0], let second = arguments[1] else { return }
                let function = Unmanaged<SQLiteFunction>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                let result = function.body(Int(sqlite3_value_int64(first)), Int(sqlite3_value_int64(second)))
                sqlite3_result_int64(context, sqlite3_int64(result))
            }, nil, nil,
            { function in if let function { Unmanaged<SQLiteFunction>.fromOpaque(function).release() } })
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Whether SQLite opened the file read-only (it does, silently, when the file cannot be
    /// written).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Rows changed by the last statement.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// The error for a result code, with SQLite's message.
    package func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// The body of an SQL function defined by ``SQLiteConnection/defineFunction(_:_:)``, kept alive
/// by SQLite (as the function's user data) until the connection closes.
private final class SQLiteFunction {
    let body: (Int, Int) -> Int

    init(_ body: @escaping (Int, Int) -> Int) { self.body = body }
}
