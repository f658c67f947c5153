// SPDX-License-Identifier: Apache-2.0
import CSQLite

/// SQLITE_TRANSIENT (a C macro Swift cannot import): SQLite copies bound text at once.
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe by itself: `CallHistory` uses it under its lock
/// (the connection is opened with SQLITE_OPEN_NOMUTEX).
final class SQLiteConnection: @unchecked Sendable {
    // @unchecked: every use is under CallHistory's lock.
    let handle: OpaquePointer
    let path: String

    /// Opens (creating) the database at `path`; `busyTimeout` is how long a statement waits
    /// for another connection's lock before failing `locked`.
    init(path: String, busyTimeout: Double) throws(CallHistoryError) {
        self.path = path
        var pointer: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(pointer)
            throw .cannotOpen(path: path, code: code, message: message)
        }
        handle = pointer
        sqlite3_busy_timeout(handle, Int32(max(0, min(busyTimeout * 1_000, Double(Int32.max)))))
    }

    deinit { sqlite3_close_v2(handle) }

    /// The typed error for result `code`, with the connection's message.
    func error(_ code: Int32) -> CallHistoryError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch code & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt(path: path, message: message)
        case SQLITE_BUSY, SQLITE_LOCKED: return .locked(path: path, message: message)
        case SQLITE_CANTOPEN: return .cannotOpen(path: path, code: code, message: message)
        default: return .sqlite(code: code, message: message)
        }
    }

    /// Runs `sql` (one or more statements, no results).
    func execute(_ sql: String) throws(CallHistoryError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Compiles `sql`.
    func prepare(_ sql: String) throws(CallHistoryError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code) }
        return SQLiteStatement(statement, connection: self)
    }

    /// The first column of the first row of `sql` as an integer (0 without a row). The
    /// statement is finalised before this returns: a live one would block COMMIT.
    func integer(_ sql: String) throws(CallHistoryError) -> Int {
        let statement = try prepare(sql)
        defer { statement.finish() }
        guard try statement.step() else { return 0 }
        return statement.int(0)
    }

    /// The first column of the first row of `sql` as text (nil without a row), finalised at once.
    func text(_ sql: String) throws(CallHistoryError) -> String? {
        let statement = try prepare(sql)
        defer { statement.finish() }
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE: the write lock is taken at once, so
    /// a busy database fails here rather than half-way).
    func transaction<T>(_ body: () throws(CallHistoryError) -> T) throws(CallHistoryError) -> T {
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
}

/// A compiled statement; parameters are 1-based, columns 0-based (SQLite's convention).
final class SQLiteStatement {
    let pointer: OpaquePointer
    let connection: SQLiteConnection

    init(_ pointer: OpaquePointer, connection: SQLiteConnection) {
        self.pointer = pointer
        self.connection = connection
    }

    deinit { sqlite3_finalize(pointer) }

    /// Ends the statement's current run (it may be stepped again after new bindings).
    func finish() { sqlite3_reset(pointer) }

    /// Binds `value` with its length: every byte, a NUL included (a C string would end at it).
    func bind(_ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(pointer, index); return }
        value.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would bind as NULL: "" is text.
            if let base = bytes.baseAddress {
                _ = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                    sqlite3_bind_text64(pointer, index, text, sqlite3_uint64(bytes.count), transient, UInt8(SQLITE_UTF8))
                }
            } else {
                sqlite3_bind_text(pointer, index, "", 0, transient)
            }
        }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(pointer, index, value) } else { sqlite3_bind_null(pointer, index) }
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(pointer, index, Int64(value)) } else { sqlite3_bind_null(pointer, index) }
    }

    /// Steps once: true when a row is ready, false when done.
    func step() throws(CallHistoryError) -> Bool {
        let code = sqlite3_step(pointer)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code)
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(pointer, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(pointer, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(pointer, column) }
    /// The column as text with every byte (a NUL included), nil for NULL.
    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(pointer, column) else { return nil }
        // sqlite3_column_bytes after sqlite3_column_text: the length of the text just made.
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(pointer, column))), as: UTF8.self)
    }

    /// The column as SQLite stores it (no conversion between types).
    func value(_ column: Int32) -> CallHistoryRow.Value {
        switch sqlite3_column_type(pointer, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(pointer, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(pointer, column))
        case SQLITE_TEXT:
            guard let bytes = sqlite3_column_text(pointer, column) else { return .null }
            return .text(Array(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(pointer, column)))))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(pointer, column))
            guard count > 0, let bytes = sqlite3_column_blob(pointer, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

/// Resets `statement` for its next bindings.
func sqlite3Reset(_ statement: SQLiteStatement) {
    sqlite3_reset(statement.pointer)
    sqlite3_clear_bindings(statement.pointer)
}

/// Rows changed by the connection's last statement.
func sqlite3Changes(_ connection: SQLiteConnection) -> Int { Int(sqlite3_changes(connection.handle)) }
