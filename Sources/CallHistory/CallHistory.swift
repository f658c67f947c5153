// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import Locking

/// The recents list in SQLite: one row per call, written as it changes, in WAL mode so
/// readers never wait for the writer and a killed process loses no committed row.
///
/// ```swift
/// let history = try CallHistory(path: dataDirectory + "/history.sqlite")
/// let recorder = CallHistoryRecorder(provider: provider, history: history)
/// for call in try history.recent(limit: 50) { … }
/// try controller.request(try history.missed(limit: 1)[0].redialTransaction()!)
/// ```
///
/// Every failure is a `CallHistoryError`: a damaged file (`corrupt`), another process
/// holding the write lock past `busyTimeout` (`locked`), a newer schema (`newerSchema`).
/// A single row that is no call is not a failure of the list: it is left out and reported in
/// `skippedRows`. Text is stored with every byte (a NUL in a handle from a push included).
public final class CallHistory: Sendable {
    /// How far a commit is durable.
    public enum Durability: Sendable, Hashable {
        /// A commit survives the process being killed (WAL, synchronous=NORMAL): no fsync per call.
        case processCrash
        /// A commit survives power loss too (synchronous=FULL: one fsync per commit).
        case powerLoss
    }

    /// The newest schema version this library writes.
    public static var schemaVersion: Int { Schema.current }

    /// The database file.
    public let path: String
    private let connection: Locked<SQLiteConnection>
    private let skipped = Locked<[CallHistorySkippedRow]>([])

    /// Opens (creating) the history at `path`, in WAL mode, migrated to the newest schema.
    /// - Throws: `cannotOpen`, `corrupt`, `locked`, `newerSchema`, `sqlite`.
    public convenience init(path: String, busyTimeout: Double = 2, durability: Durability = .processCrash) throws(CallHistoryError) {
        try self.init(path: path, busyTimeout: busyTimeout, durability: durability, schemaVersion: Schema.current)
    }

    /// Opens the history migrated only to `schemaVersion` (tests of the migrations).
    init(path: String, busyTimeout: Double, durability: Durability, schemaVersion: Int) throws(CallHistoryError) {
        self.path = path
        let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
        // The first statements read the file: a damaged one fails here, typed.
        let mode = try connection.text("PRAGMA journal_mode = WAL")
        guard mode == "wal" else { throw .sqlite(code: 0, message: "WAL mode refused (journal mode \(mode ?? "unknown"))") }
        try connection.execute("PRAGMA synchronous = \(durability == .powerLoss ? "FULL" : "NORMAL")")
        try Schema.migrate(connection, to: schemaVersion)
        self.connection = Locked(connection)
    }

    /// The schema version of the file.
    public func storedSchemaVersion() throws(CallHistoryError) -> Int {
        try connection.withLock { (connection) throws(CallHistoryError) in try connection.integer("PRAGMA user_version") }
    }

    /// Inserts `entry`, or replaces the entry with its id.
    public func record(_ entry: CallHistoryEntry) throws(CallHistoryError) {
        try record([entry])
    }

    /// Inserts or replaces every entry of `entries` in one transaction (all or none).
    public func record(_ entries: [CallHistoryEntry]) throws(CallHistoryError) {
        try connection.withLock { (connection) throws(CallHistoryError) in
            try connection.transaction { () throws(CallHistoryError) in
                let statement = try connection.prepare("""
                    INSERT INTO calls (id, handle_kind, handle, name, outgoing, started, connected, ended, duration,
                                       ended_reason, missed, video)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
                    ON CONFLICT (id) DO UPDATE SET handle_kind = ?2, handle = ?3, name = ?4, outgoing = ?5, started = ?6,
                        connected = ?7, ended = ?8, duration = ?9, ended_reason = ?10, missed = ?11, video = ?12
                    """)
                for entry in entries {
                    sqlite3Reset(statement)
                    statement.bind(1, entry.id.uuidString)
                    statement.bind(2, entry.handle?.kind.rawValue)
                    statement.bind(3, entry.handle?.value)
                    statement.bind(4, entry.name)
                    statement.bind(5, entry.direction.rawValue)
                    statement.bind(6, entry.startDate.timeIntervalSinceReferenceDate)
                    statement.bind(7, entry.connectDate?.timeIntervalSinceReferenceDate)
                    statement.bind(8, entry.endDate?.timeIntervalSinceReferenceDate)
                    statement.bind(9, entry.duration)
                    statement.bind(10, entry.endedReason?.rawValue)
                    statement.bind(11, entry.isMissed ? 1 : 0)
                    statement.bind(12, entry.hasVideo ? 1 : 0)
                    _ = try statement.step()
                }
                statement.finish()
            }
        }
    }

    /// The newest `limit` calls, newest first.
    public func recent(limit: Int = 100) throws(CallHistoryError) -> [CallHistoryEntry] {
        try query("ORDER BY started DESC LIMIT ?1") { $0.bind(1, limit) }
    }

    /// The newest `limit` missed calls, newest first.
    public func missed(limit: Int = 100) throws(CallHistoryError) -> [CallHistoryEntry] {
        try query("WHERE missed = 1 ORDER BY started DESC LIMIT ?1") { $0.bind(1, limit) }
    }

    /// The newest `limit` calls with `handle` (same kind and value), newest first.
    public func calls(with handle: CallHandle, limit: Int = 100) throws(CallHistoryError) -> [CallHistoryEntry] {
        try query("WHERE handle = ?1 AND handle_kind = ?2 ORDER BY started DESC LIMIT ?3") { statement in
            statement.bind(1, handle.value)
            statement.bind(2, handle.kind.rawValue)
            statement.bind(3, limit)
        }
    }

    /// The entry of call `id`, or nil.
    /// - Throws: `corrupt` when its row is no call (naming the column).
    public func entry(id: UUID) throws(CallHistoryError) -> CallHistoryEntry? {
        var bad: CallHistorySkippedRow?
        let found = try query("WHERE id = ?1", skipping: { bad = $0 }) { $0.bind(1, id.uuidString) }.first
        if let bad { throw bad.error }
        return found
    }

    /// The rows the queries met that are no call, each once, in the order met. They are left
    /// out of every list (the rest is returned) and stay in the file; `delete(id:)` removes one.
    public var skippedRows: [CallHistorySkippedRow] { skipped.withLock { $0 } }

    /// How many calls are recorded.
    public func count() throws(CallHistoryError) -> Int {
        try connection.withLock { (connection) throws(CallHistoryError) in try connection.integer("SELECT count(*) FROM calls") }
    }

    /// Deletes call `id`; returns whether it was there.
    @discardableResult
    public func delete(id: UUID) throws(CallHistoryError) -> Bool {
        try connection.withLock { (connection) throws(CallHistoryError) in
            let statement = try connection.prepare("DELETE FROM calls WHERE id = ?1")
            statement.bind(1, id.uuidString)
            _ = try statement.step()
            return sqlite3Changes(connection) > 0
        }
    }

    /// Deletes every call.
    public func deleteAll() throws(CallHistoryError) {
        try connection.withLock { (connection) throws(CallHistoryError) in try connection.execute("DELETE FROM calls") }
    }

    /// SQLite's own consistency check of the file ("ok" when sound).
    public func integrityCheck() throws(CallHistoryError) -> String {
        try connection.withLock { (connection) throws(CallHistoryError) in
            try connection.text("PRAGMA integrity_check") ?? ""
        }
    }

    /// The rows of `clause` as entries; a row that is no call is left out, reported to
    /// `skipping` and remembered in `skippedRows`.
    private func query(_ clause: String, skipping: (CallHistorySkippedRow) -> Void = { _ in },
                       _ bind: (SQLiteStatement) -> Void) throws(CallHistoryError) -> [CallHistoryEntry] {
        try connection.withLock { (connection) throws(CallHistoryError) in
            let columns = CallHistoryRow.columnNames.joined(separator: ", ")
            let statement = try connection.prepare("SELECT \(columns), rowid FROM calls \(clause)")
            bind(statement)
            var entries: [CallHistoryEntry] = []
            let count = Int32(CallHistoryRow.columnNames.count)
            while try statement.step() {
                let row = CallHistoryRow(values: (0..<count).map { statement.value($0) })
                do throws(CallHistoryRow.Malformation) {
                    entries.append(try row.entry())
                } catch {
                    let id = statement.isNull(0) ? nil : statement.text(0)
                    let message = "a row that is no call: \(error)"
                    let report = CallHistorySkippedRow(rowID: Int64(statement.int(count)), id: id, error: .corrupt(path: path, message: message))
                    skipping(report)
                    skipped.withLock { rows in if !rows.contains(where: { $0.rowID == report.rowID }) { rows.append(report) } }
                }
            }
            return entries
        }
    }
}
