// SPDX-License-Identifier: Apache-2.0
/// A row of the history that is no call (a damaged or hand-edited file: a NULL start, an
/// unknown ended reason, an id that is not a UUID): the queries leave it out and report it
/// in `CallHistory.skippedRows`, so one bad row never hides the rest of the list.
public struct CallHistorySkippedRow: Sendable, Equatable, CustomStringConvertible {
    /// SQLite's rowid of the row.
    public let rowID: Int64
    /// Its `id` column as text, when it has one.
    public let id: String?
    /// What is wrong with it: `CallHistoryError.corrupt`, naming the column.
    public let error: CallHistoryError

    public var description: String { "row \(rowID)\(id.map { " (\($0))" } ?? ""): \(error)" }
}
