import CSQLite
import Foundation

/// A prepared statement of one ``SQLiteConnection``: bind (1-based), step, read columns
/// (0-based). Used only while its connection is (by whoever holds the connection's lock).
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding

    /// Clears the bindings and resets the statement, ready to bind and run again.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ value: Int, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, sqlite3_int64(value)))
    }

    func bind(_ value: String, at index: Int32) throws {
        try check(sqlite3_bind_text(handle, index, value, -1, csqlite_transient()))
    }

    func bind(_ value: Data, at index: Int32) throws {
        let code = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), csqlite_transient())
        }
        try check(code)
    }

    /// Binds every value in order, from index 1, after a ``reset()``.
    func bind(_ values: [any SQLiteBindable]) throws {
        reset()
        for (offset, value) in values.enumerated() { try value.bind(to: self, at: Int32(offset + 1)) }
    }

    // MARK: Running

    /// Steps once: `true` when a row is ready to read, `false` when done.
    /// - Throws: ``SQLiteError``.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code)
        }
    }

    /// Binds `values`, runs to completion and resets.
    func run(_ values: [any SQLiteBindable] = []) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds `values` and calls `row` for each result row; resets at the end.
    func query(_ values: [any SQLiteBindable] = [], row: (SQLiteStatement) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try row(self) }
    }

    // MARK: Columns

    func int(at column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    func data(at column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    private func check(_ code: Int32) throws {
        if code != SQLITE_OK { throw connection.error(code) }
    }
}

/// A value a statement can bind.
protocol SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int32) throws
}

extension Int: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int32) throws { try statement.bind(self, at: index) }
}

extension String: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int32) throws { try statement.bind(self, at: index) }
}

extension Data: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int32) throws { try statement.bind(self, at: index) }
}
