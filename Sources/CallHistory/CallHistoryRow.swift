// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation

/// One row of the `calls` table as SQLite holds it — twelve columns of whatever type the file
/// has (a damaged or hand-edited file can hold anything, NOT NULL or not) — and the one
/// decoder from such a row to a `CallHistoryEntry`. Kept apart from SQLite so the decoder can
/// be fuzzed from bytes (`history-row`).
@_spi(RowDecoding) public struct CallHistoryRow: Sendable, Hashable {
    /// A column's value, in SQLite's five storage classes.
    public enum Value: Sendable, Hashable {
        case null
        case integer(Int64)
        case real(Double)
        /// Text with every byte, NULs included (not necessarily valid UTF-8).
        case text([UInt8])
        case blob([UInt8])
    }

    /// The columns, in the order of `columnNames`.
    public static let columnNames = ["id", "handle_kind", "handle", "name", "outgoing", "started", "connected", "ended",
                                     "duration", "ended_reason", "missed", "video"]

    /// The row's values (missing columns read as NULL).
    public var values: [Value]

    /// A row of `values`.
    public init(values: [Value]) { self.values = values }

    /// The row `record` writes for `entry`.
    public init(_ entry: CallHistoryEntry) {
        func text(_ string: String?) -> Value { string.map { .text(Array($0.utf8)) } ?? .null }
        func real(_ date: Date?) -> Value { date.map { .real($0.timeIntervalSinceReferenceDate) } ?? .null }
        values = [
            text(entry.id.uuidString), entry.handle.map { .integer(Int64($0.kind.rawValue)) } ?? .null, text(entry.handle?.value),
            text(entry.name), .integer(Int64(entry.direction.rawValue)), real(entry.startDate), real(entry.connectDate),
            real(entry.endDate), .real(entry.duration), entry.endedReason.map { .integer(Int64($0.rawValue)) } ?? .null,
            .integer(entry.isMissed ? 1 : 0), .integer(entry.hasVideo ? 1 : 0),
        ]
    }

    /// Why a row is no call: the column and what is wrong with it.
    public struct Malformation: Error, Sendable, Hashable, CustomStringConvertible {
        /// The column's name.
        public let column: String
        /// What it holds instead of a valid value.
        public let problem: String
        public var description: String { "\(column) \(problem)" }
    }

    /// The entry this row holds.
    /// - Throws: `Malformation` naming the first column that is missing, of the wrong type or
    ///   out of range (a NULL `started`, an unknown ended reason, a date that is not finite).
    public func entry() throws(Malformation) -> CallHistoryEntry {
        let idText = try text(0)
        guard let idText, let id = UUID(uuidString: idText) else { throw malformed(0, idText == nil ? "is NULL" : "is not a UUID") }
        guard let outgoing = try integer(4), let direction = CallHistoryEntry.Direction(rawValue: Int(clamping: outgoing)) else {
            throw malformed(4, "is not 0 or 1")
        }
        var handle: CallHandle?
        if let kindValue = try integer(1), let value = try text(2) {
            guard let kind = CallHandle.Kind(rawValue: Int(clamping: kindValue)) else { throw malformed(1, "is no handle kind") }
            handle = CallHandle(kind: kind, value: value)
        }
        guard let started = try date(5) else { throw malformed(5, "is NULL") }
        var reason: CallEndedReason?
        if let value = try integer(9) {
            guard let known = CallEndedReason(rawValue: Int(clamping: value)) else { throw malformed(9, "is no ended reason") }
            reason = known
        }
        guard let duration = try real(8) else { throw malformed(8, "is NULL") }
        guard duration >= 0 else { throw malformed(8, "is negative") }
        guard let missed = try integer(10) else { throw malformed(10, "is NULL") }
        guard let video = try integer(11) else { throw malformed(11, "is NULL") }
        return CallHistoryEntry(id: id, handle: handle, name: try text(3), direction: direction, startDate: started,
                                connectDate: try date(6), endDate: try date(7), endedReason: reason, hasVideo: video != 0,
                                duration: duration, isMissed: missed != 0)
    }

    // MARK: Columns

    private func value(_ column: Int) -> Value { column < values.count ? values[column] : .null }

    private func malformed(_ column: Int, _ problem: String) -> Malformation {
        Malformation(column: Self.columnNames[column], problem: problem)
    }

    /// Text (every byte: a NUL does not end it), nil for NULL.
    private func text(_ column: Int) throws(Malformation) -> String? {
        switch value(column) {
        case .null: nil
        case let .text(bytes): String(decoding: bytes, as: UTF8.self)
        default: throw malformed(column, "is not text")
        }
    }

    /// An integer (a REAL column's whole number too), nil for NULL.
    private func integer(_ column: Int) throws(Malformation) -> Int64? {
        switch value(column) {
        case .null: return nil
        case let .integer(value): return value
        case let .real(value):
            guard let exact = Int64(exactly: value) else { throw malformed(column, "is not an integer") }
            return exact
        default: throw malformed(column, "is not an integer")
        }
    }

    /// A finite number, nil for NULL.
    private func real(_ column: Int) throws(Malformation) -> Double? {
        let number: Double
        switch value(column) {
        case .null: return nil
        case let .real(value): number = value
        case let .integer(value): number = Double(value)
        default: throw malformed(column, "is not a number")
        }
        guard number.isFinite else { throw malformed(column, "is not finite") }
        return number
    }

    private func date(_ column: Int) throws(Malformation) -> Date? {
        try real(column).map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}
