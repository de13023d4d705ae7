import CSQLite
import Foundation

/// A prepared statement of one ``SQLiteConnection``: bind (1-based), step, read columns
/// (0-based). Used only while its connection is (by whoever holds the connection's lock).
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    package init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding

    /// Clears the bindings and resets the statement, ready to bind and run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    package func bind(_ value: Int, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, sqlite3_int64(value)))
    }

    /// Binds the string's UTF-8 bytes (SQLite copies them). O(length), no other copy.
    package func bind(_ value: String, at index: Int32) throws {
        var value = value
        try value.withUTF8 { try bindText($0, at: index, destructor: csqlite_transient()) }
    }

    package func bind(_ value: Data, at index: Int32) throws {
        try value.withUnsafeBytes { try bind($0, at: index) }
    }

    /// Binds the bytes as a blob (SQLite copies them).
    package func bind(_ bytes: [UInt8], at index: Int32) throws {
        try bytes.withUnsafeBytes { try bind($0, at: index) }
    }

    package func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds `bytes` as a blob; SQLite copies them, so the buffer need not outlive the call.
    package func bind(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        try bindBlob(bytes, at: index, destructor: csqlite_transient())
    }

    /// Binds the string's UTF-8 bytes without copying them while `body` runs (it runs the
    /// statement), then binds NULL in their place, so the statement never keeps the pointer.
    /// For a hot loop, where SQLite's copy (an allocation and a free per bind) shows.
    package func withBorrowed<Result>(_ value: String, at index: Int32, _ body: () throws -> Result) throws -> Result {
        var value = value
        return try value.withUTF8 { utf8 in
            try bindText(utf8, at: index, destructor: nil)  // SQLITE_STATIC
            defer { sqlite3_bind_null(handle, index) }
            return try body()
        }
    }

    /// Binds `bytes` as a blob without copying them while `body` runs (it runs the statement),
    /// then binds NULL in their place, so the statement never keeps the pointer.
    package func withBorrowed<Result>(_ bytes: UnsafeRawBufferPointer, at index: Int32, _ body: () throws -> Result)
        throws -> Result
    {
        try bindBlob(bytes, at: index, destructor: nil)  // SQLITE_STATIC
        defer { sqlite3_bind_null(handle, index) }
        return try body()
    }

    /// Binds UTF-8 text; the empty string as an empty text (a null pointer would bind NULL).
    private func bindText(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int32, destructor: sqlite3_destructor_type?)
        throws
    {
        guard let bytes = utf8.baseAddress, !utf8.isEmpty else {
            // A static empty C string, which SQLite need not copy (a copy allocates).
            let empty: StaticString = ""
            return try empty.utf8Start.withMemoryRebound(to: CChar.self, capacity: 1) {
                try check(sqlite3_bind_text(handle, index, $0, 0, nil))  // SQLITE_STATIC
            }
        }
        try UnsafeRawPointer(bytes).withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            try check(sqlite3_bind_text(handle, index, $0, Int32(utf8.count), destructor))
        }
    }

    /// Binds a blob; no bytes as an empty blob (a null pointer would bind NULL).
    private func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32, destructor: sqlite3_destructor_type?) throws
    {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return try check(sqlite3_bind_zeroblob(handle, index, 0))
        }
        try check(sqlite3_bind_blob(handle, index, base, Int32(bytes.count), destructor))
    }

    /// Binds every value in order, from index 1, after a ``reset()``.
    package func bind(_ values: [any SQLiteBindable]) throws {
        reset()
        for (offset, value) in values.enumerated() { try value.bind(to: self, at: Int32(offset + 1)) }
    }

    // MARK: Running

    /// Steps once: `true` when a row is ready to read, `false` when done.
    /// - Throws: ``SQLiteError``.
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code)
        }
    }

    /// Binds `values`, runs to completion and resets.
    package func run(_ values: [any SQLiteBindable] = []) throws {
        try bind(values)
        try runBound()
    }

    /// Runs to completion with the values bound so far, then resets (keeping the bindings).
    /// The writer's fast path: every run leaves the statement reset, so binding each parameter
    /// with the typed `bind(_:at:)` and calling this needs no array of values and no
    /// ``reset()`` — and SQLite reuses each parameter's buffer instead of allocating one.
    package func runBound() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds `values` and calls `row` for each result row; resets at the end.
    package func query(_ values: [any SQLiteBindable] = [], row: (SQLiteStatement) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try row(self) }
    }

    // MARK: Columns

    package func int(at column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func string(at column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: text)
    }

    /// Calls `body` with the bytes of a blob column, without copying them; the buffer is valid
    /// only during the call (until the statement steps or resets). Empty for NULL or a
    /// zero-length blob.
    package func withBlob<Result>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, column), count: count))
    }

    private func check(_ code: Int32) throws {
        if code != SQLITE_OK { throw connection.error(code) }
    }
}

/// A value a statement can bind.
package protocol SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int32) throws
}

extension Int: SQLiteBindable {
    package func bind(to statement: SQLiteStatement, at index: Int32) throws { try statement.bind(self, at: index) }
}

extension String: SQLiteBindable {
    package func bind(to statement: SQLiteStatement, at index: Int32) throws { try statement.bind(self, at: index) }
}

extension Data: SQLiteBindable {
    package func bind(to statement: SQLiteStatement, at index: Int32) throws { try statement.bind(self, at: index) }
}

extension [UInt8]: SQLiteBindable {
    /// Binds the bytes as a blob (SQLite copies them).
    package func bind(to statement: SQLiteStatement, at index: Int32) throws {
        try withUnsafeBytes { try statement.bind($0, at: index) }
    }
}
