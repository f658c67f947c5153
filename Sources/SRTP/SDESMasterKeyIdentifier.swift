// SPDX-License-Identifier: Apache-2.0
/// The optional master key identifier of an SDES key (RFC 4568 §6.1), written `value:length`,
/// e.g. `1:4` (value 1 sent as a 4-byte MKI field in each packet).
public struct SDESMasterKeyIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The MKI value.
    public let value: UInt64
    /// Bytes of MKI field carried in each SRTP/SRTCP packet (1...128).
    public let length: Int

    /// Creates an MKI, checking that `value` fits in `length` bytes.
    ///
    /// - Throws: `SDESError.invalidMKI`.
    public init(value: UInt64, length: Int) throws(SDESError) {
        guard (1...128).contains(length), length >= 8 || value < (1 << UInt64(length * 8)) else {
            throw .invalidMKI("\(value):\(length)")
        }
        self.value = value
        self.length = length
    }

    /// The MKI whose wire form is `bytes` (big-endian value).
    ///
    /// - Throws: `SDESError.invalidMKI` unless `bytes` is 1...128 long with a value that fits
    ///   64 bits (the SDES form is a decimal value).
    public init(bytes: [UInt8]) throws(SDESError) {
        guard (1...128).contains(bytes.count), bytes.dropLast(8).allSatisfy({ $0 == 0 }) else {
            throw .invalidMKI("<\(bytes.count) bytes>")
        }
        try self.init(value: bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }, length: bytes.count)
    }

    /// Parses `value:length`.
    init(parsing text: Substring) throws(SDESError) {
        let shown = SDESError.quoted(text) { $0.isASCIIDigit || $0 == ":" }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
              !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigit), let value = UInt64(parts[0]),
              !parts[1].isEmpty, parts[1].count <= 3, parts[1].allSatisfy(\.isASCIIDigit), let length = Int(parts[1])
        else { throw .invalidMKI(shown) }
        do {
            try self.init(value: value, length: length)
        } catch {
            throw .invalidMKI(shown)
        }
    }

    /// The MKI as it appears on the wire: `value` big-endian in `length` bytes.
    public var bytes: [UInt8] {
        (0..<length).map { position in
            let shift = (length - 1 - position) * 8
            return shift < 64 ? UInt8(truncatingIfNeeded: value >> UInt64(shift)) : 0
        }
    }

    /// The SDP form `value:length`.
    public var description: String { "\(value):\(length)" }
}
