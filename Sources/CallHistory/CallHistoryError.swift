// SPDX-License-Identifier: Apache-2.0
/// Why the call history could not be opened, read or written. A damaged or busy database is
/// always one of these, never a crash.
public enum CallHistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened (missing directory, permissions): SQLite's `code` and text.
    case cannotOpen(path: String, code: Int32, message: String)
    /// The file is not a database, or is damaged (SQLITE_NOTADB, SQLITE_CORRUPT).
    case corrupt(path: String, message: String)
    /// Another connection holds the lock and did not let go within the busy timeout
    /// (SQLITE_BUSY, SQLITE_LOCKED).
    case locked(path: String, message: String)
    /// The database was written by a newer version of this library (`found` > `supported`).
    case newerSchema(found: Int, supported: Int)
    /// Any other SQLite failure: its result code and text.
    case sqlite(code: Int32, message: String)
    /// An app name that cannot name the app's data directory (empty, starting with ".", holding "/").
    case invalidAppName(String)
    /// Neither `XDG_DATA_HOME` nor `HOME` holds an absolute path: no per-user place for recents.
    case noDataDirectory

    public var description: String {
        switch self {
        case let .cannotOpen(path, code, message): "cannot open \(path): \(message) (\(code))"
        case let .corrupt(path, message): "\(path) is damaged or not a database: \(message)"
        case let .locked(path, message): "\(path) is locked by another connection: \(message)"
        case let .newerSchema(found, supported): "schema version \(found) is newer than \(supported), the newest this library knows"
        case let .sqlite(code, message): "SQLite error \(code): \(message)"
        case let .invalidAppName(name): "\"\(name)\" cannot name an app's data directory"
        case .noDataDirectory: "neither XDG_DATA_HOME nor HOME is an absolute path: no place for recents"
        }
    }
}
