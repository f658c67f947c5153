// SPDX-License-Identifier: Apache-2.0
/// Why a network trace could not be read. Line numbers count from 1, the header being line 1.
public enum NetworkTraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first line is not `sequence,send_ms,arrival_ms`.
    case badHeader(found: String)
    /// A line does not have exactly three comma-separated fields.
    case wrongFieldCount(line: Int, count: Int)
    /// A field is not a number (`column` is the header's name for it).
    case invalidNumber(line: Int, column: String, text: String)
    /// A send or arrival time beyond ±`NetworkTrace.maximumTimeMagnitudeMs`.
    case timeOutOfRange(line: Int, column: String, text: String)
    /// A sequence number appears a second time.
    case duplicateSequence(line: Int, sequence: Int)
    /// The file could not be read or written.
    case fileAccess(path: String, reason: String)

    /// A one-line explanation naming the line or file.
    public var description: String {
        switch self {
        case .badHeader(let found): "trace: header must be \"\(NetworkTrace.csvHeader)\", found \"\(found)\""
        case .wrongFieldCount(let line, let count): "trace line \(line): expected 3 fields, found \(count)"
        case .invalidNumber(let line, let column, let text): "trace line \(line): \(column) \(text.debugDescription) is not a number"
        case .timeOutOfRange(let line, let column, let text):
            "trace line \(line): \(column) \(text) is beyond ±10^12 ms"
        case .duplicateSequence(let line, let sequence): "trace line \(line): sequence \(sequence) appears twice"
        case .fileAccess(let path, let reason): "trace file \(path): \(reason)"
        }
    }
}
