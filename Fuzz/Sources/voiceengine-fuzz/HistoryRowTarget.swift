// SPDX-License-Identifier: Apache-2.0
@_spi(RowDecoding) import CallHistory
import Foundation

/// The history's row decoder (`CallHistoryRow.entry()`, what every query runs on each SQLite
/// row) over twelve columns of any storage class and value: it never traps, and an entry it
/// accepts has finite dates and duration and decodes again from the row `record` writes for it.
enum HistoryRowTarget {
    static let target = FuzzTarget(name: "history-row", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        let values = CallHistoryRow.columnNames.indices.map { _ in value(&input) }
        let row = CallHistoryRow(values: values)
        guard let entry = try? row.entry() else { return }
        check(entry.startDate.timeIntervalSinceReferenceDate.isFinite && entry.duration.isFinite && entry.duration >= 0,
              "an entry with a start or duration that is not a finite time")
        check([entry.connectDate, entry.endDate].allSatisfy { $0?.timeIntervalSinceReferenceDate.isFinite ?? true },
              "an entry with a date that is not finite")
        let again = try? CallHistoryRow(entry).entry()
        check(again == entry, "the row written for an entry does not decode to it")
    }

    /// One column: the kind from one byte, then its value (small numbers and UUIDs often, so
    /// the decoder's later columns are reached).
    static func value(_ input: inout FuzzInput) -> CallHistoryRow.Value {
        func int64() -> UInt64 { UInt64(input.uint32()) << 32 | UInt64(input.uint32()) }
        switch input.byte() % 9 {
        case 0: return .null
        case 1: return .integer(Int64(Int8(bitPattern: input.byte())))
        case 2: return .integer(Int64(bitPattern: int64()))
        case 3: return .real(Double(Int16(bitPattern: input.uint16())))
        case 4: return .real(Double(bitPattern: int64()))
        case 5: return .text(Array(input.bytes(maximum: 48)))
        case 6:
            let raw = (0..<16).map { _ in input.byte() }
            let uuid = UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                                   raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
            return .text(Array(uuid.uuidString.utf8))
        case 7: return .blob(Array(input.bytes(maximum: 16)))
        default: return .integer(Int64(input.byte() % 8))
        }
    }

    /// Rows as `record` writes them: a missed call, an answered video call with a NUL in its handle.
    static func seeds() throws -> [[UInt8]] {
        // Each column: kind byte, then its bytes (see `value`).
        func uuid(_ byte: UInt8) -> [UInt8] { [6] + [UInt8](repeating: byte, count: 16) }
        func small(_ value: UInt8) -> [UInt8] { [8, value] }
        func real(_ value: Int16) -> [UInt8] { [3, UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
        func text(_ string: String) -> [UInt8] { let bytes = Array(string.utf8); return [5, 0, UInt8(bytes.count)] + bytes }
        let missed = uuid(0x11) + small(2) + text("+442079460000") + [0] + small(0) + real(100) + [0] + real(130) + real(0)
            + small(3) + small(1) + small(0)
        let answered = uuid(0x22) + small(1) + text("sip:alice@example.org\u{0}x") + text("Alice") + small(1) + real(10)
            + real(12) + real(70) + real(58) + small(0) + small(0) + small(1)
        return [missed, answered]
    }
}
