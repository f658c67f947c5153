// SPDX-License-Identifier: Apache-2.0
/// A certificate's fingerprint as SDP carries it for DTLS-SRTP (`a=fingerprint:sha-256 AB:CD:…`,
/// RFC 8122 §5): the hash function's name and the digest of the certificate's DER encoding.
///
/// The peer's fingerprint is what authenticates its DTLS handshake (RFC 5763 §5): the
/// certificate it presents must hash to it, or no media flows.
public struct CertificateFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash functions of RFC 8122's registry we can check a certificate against.
    public enum HashFunction: String, Sendable, CaseIterable {
        /// SHA-1 (20 bytes): older peers only; still accepted for checking.
        case sha1 = "sha-1"
        /// SHA-224 (28 bytes).
        case sha224 = "sha-224"
        /// SHA-256 (32 bytes): what we send, and what WebRTC endpoints send.
        case sha256 = "sha-256"
        /// SHA-384 (48 bytes).
        case sha384 = "sha-384"
        /// SHA-512 (64 bytes).
        case sha512 = "sha-512"

        /// The digest's length in bytes.
        public var digestLength: Int {
            switch self {
            case .sha1: return 20
            case .sha224: return 28
            case .sha256: return 32
            case .sha384: return 48
            case .sha512: return 64
            }
        }
    }

    /// The hash function.
    public let hashFunction: HashFunction
    /// The digest of the certificate's DER encoding (`hashFunction.digestLength` bytes).
    public let digest: [UInt8]

    /// A fingerprint of `digest` under `hashFunction`; nil when the length is not the function's.
    public init?(hashFunction: HashFunction, digest: [UInt8]) {
        guard digest.count == hashFunction.digestLength else { return nil }
        self.hashFunction = hashFunction
        self.digest = digest
    }

    /// Parses an `a=fingerprint` value: a hash function name (case-insensitive, RFC 8122), one
    /// space, and the digest as colon-separated pairs of hex digits. Nil for an unknown
    /// function, a malformed digest or one of the wrong length.
    public init?(sdpValue: String) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let function = HashFunction(rawValue: parts[0].lowercased()) else { return nil }
        let pairs = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        // Checked before anything is parsed: a line of 10^6 pairs is refused at its length.
        guard pairs.count == function.digestLength else { return nil }
        var digest: [UInt8] = []
        digest.reserveCapacity(pairs.count)
        for pair in pairs {
            // Two hex digits exactly: UInt8(_:radix:) alone would take a sign ("+4").
            guard pair.utf8.count == 2, pair.utf8.allSatisfy({ $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit }),
                  let byte = UInt8(pair, radix: 16)
            else { return nil }
            digest.append(byte)
        }
        self.init(hashFunction: function, digest: digest)
    }

    /// The `a=fingerprint` value: the function's name, a space, upper-case hex pairs joined by
    /// colons (RFC 8122's form).
    public var sdpValue: String {
        let hex = digest.map { byte -> String in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "\(hashFunction.rawValue) \(hex.joined(separator: ":"))"
    }

    /// Same as `sdpValue` (a fingerprint is public).
    public var description: String { sdpValue }
}
