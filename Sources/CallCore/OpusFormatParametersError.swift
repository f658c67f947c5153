// SPDX-License-Identifier: Apache-2.0
/// Why the Opus parameters of an `a=fmtp` attribute (RFC 7587 §6.1) were refused. Each case
/// names the parameter, lowercased; a value is quoted only up to 40 characters, so a hostile
/// peer's megabyte of digits does not travel on in logs.
public enum OpusFormatParametersError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A known parameter whose value cannot be read: no value, not decimal digits, or a flag
    /// other than 0 or 1.
    case malformed(parameter: String, reason: String)
    /// A number outside the range RFC 7587 allows for the parameter (the value as written).
    case outOfRange(parameter: String, value: String, range: ClosedRange<Int>)
    /// A known parameter given twice (which one the peer meant is unknowable).
    case duplicate(parameter: String)

    /// A one-line explanation naming the parameter and what is wrong with it.
    public var description: String {
        switch self {
        case let .malformed(parameter, reason): return "a=fmtp: \(parameter): \(reason)"
        case let .outOfRange(parameter, value, range):
            return "a=fmtp: \(parameter)=\(value) is outside \(range.lowerBound)–\(range.upperBound)"
        case let .duplicate(parameter): return "a=fmtp: \(parameter) is given more than once"
        }
    }

    /// `value` cut to its first 40 characters (with `…` when cut).
    static func truncated(_ value: Substring) -> String {
        value.count > 40 ? "\(value.prefix(40))…" : String(value)
    }

    /// `value`, truncated, in quotes.
    static func quoted(_ value: Substring) -> String { "'\(truncated(value))'" }
}
