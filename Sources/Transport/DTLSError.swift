// SPDX-License-Identifier: Apache-2.0
public import SRTP

/// Why a DTLS-SRTP association (RFC 5763/5764) failed or could not be set up. Each ends the
/// association: no media is keyed from it.
public enum DTLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The certificate the peer presented does not hash to any fingerprint its SDP gave: an
    /// attacker in the path, or signalling that does not match the media. `presented` is the
    /// certificate's digest under the first expected fingerprint's hash function.
    case fingerprintMismatch(expected: [CertificateFingerprint], presented: CertificateFingerprint?)
    /// The peer completed no handshake in `milliseconds` (it never answered, or every flight
    /// was lost).
    case handshakeTimedOut(milliseconds: Int)
    /// The peer offered or chose no SRTP protection profile we accept (use_srtp, RFC 5764 §4.1.2).
    case noCommonSRTPProfile
    /// The handshake failed: OpenSSL's reason (a TLS alert from the peer, a protocol error).
    case handshakeFailed(reason: String)
    /// The peer closed the association (close_notify) or sent a fatal alert after it was up.
    case closedByPeer(reason: String)
    /// A parameter we were given is out of range; the string says which and why.
    case badParameter(String)
    /// Making the certificate, key or TLS context failed in `function`, for OpenSSL's `reason`.
    case setupFailed(function: String, reason: String)
    /// The keys exported from the handshake were refused by SRTP.
    case keys(SRTPError)

    /// A one-line explanation naming what failed and why.
    public var description: String {
        switch self {
        case let .fingerprintMismatch(expected, presented):
            return "DTLS: the peer's certificate (\(presented.map(\.sdpValue) ?? "none")) matches none of the SDP's fingerprints (\(expected.map(\.sdpValue).joined(separator: ", ")))"
        case let .handshakeTimedOut(milliseconds): return "DTLS: no handshake with the peer within \(milliseconds) ms"
        case .noCommonSRTPProfile: return "DTLS: no SRTP protection profile in common with the peer"
        case let .handshakeFailed(reason): return "DTLS handshake failed: \(reason)"
        case let .closedByPeer(reason): return "DTLS: the peer closed the association (\(reason))"
        case let .badParameter(why): return "DTLS: bad parameter: \(why)"
        case let .setupFailed(function, reason): return "DTLS setup: \(function) failed: \(reason)"
        case let .keys(error): return "DTLS-SRTP keys: \(error)"
        }
    }
}
