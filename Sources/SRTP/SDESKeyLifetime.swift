// SPDX-License-Identifier: Apache-2.0
/// The optional master-key lifetime of an SDES key (RFC 4568 §6.1): the number of packets the
/// key may protect, written either as a power of two (`2^31`) or in decimal (`2147483648`).
/// The written form is kept so formatting reproduces the peer's text.
public enum SDESKeyLifetime: Sendable, Hashable, CustomStringConvertible {
    /// `2^exponent` packets (exponent 0...63).
    case powerOfTwo(exponent: Int)
    /// A decimal packet count.
    case packets(UInt64)

    /// The lifetime as a packet count.
    public var packetCount: UInt64 {
        switch self {
        case .powerOfTwo(let exponent): return 1 << UInt64(exponent)
        case .packets(let count): return count
        }
    }

    /// The lifetime of `count` packets, written `2^N` when it is a power of two.
    public init(packetCount count: UInt64) {
        self = count != 0 && count & (count - 1) == 0 ? .powerOfTwo(exponent: count.trailingZeroBitCount) : .packets(count)
    }

    /// Parses `2^N` or a decimal count; nil if malformed or out of range (a lifetime of 0
    /// packets included: no key can be used for none).
    public init?(_ text: Substring) {
        if text.hasPrefix("2^") {
            let digits = text.dropFirst(2)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let exponent = Int(digits), exponent < 64 else { return nil }
            self = .powerOfTwo(exponent: exponent)
        } else {
            guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let count = UInt64(text), count > 0 else { return nil }
            self = .packets(count)
        }
    }

    /// The SDP form: `2^31` or `2147483648`.
    public var description: String {
        switch self {
        case .powerOfTwo(let exponent): return "2^\(exponent)"
        case .packets(let count): return String(count)
        }
    }
}

extension Character {
    /// True for `0`...`9` only (not other Unicode digits).
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
    /// True for `A`...`Z` only.
    var isASCIIUppercaseLetter: Bool { isASCII && isUppercase }
    /// True for `a`...`z` only.
    var isASCIILowercaseLetter: Bool { isASCII && isLowercase }
}
