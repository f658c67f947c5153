// SPDX-License-Identifier: Apache-2.0
import SRTP

/// How this side keys SRTP: what an offer from `LocalAudio` carries, and what an answer from it
/// accepts.
public enum KeyExchange: Sendable, Equatable {
    /// SDES (RFC 4568): the keys travel in the SDP's `a=crypto` lines, on `RTP/SAVP`. What SIP
    /// trunks, PBXs and desk phones speak; the default.
    case sdes
    /// DTLS-SRTP only (RFC 5763, RFC 5764): the keys come from a DTLS handshake on the media
    /// path, and the SDP carries the fingerprint of the certificate that handshake presents
    /// (`fingerprint`). An offer is `UDP/TLS/RTP/SAVPF` with `a=setup:actpass`, `a=mid`,
    /// `a=group:BUNDLE` and rtcp-mux, as WebRTC endpoints (RFC 8829) expect; no `a=crypto`.
    case dtls(fingerprint: CertificateFingerprint)
    /// Either, the answerer's choice: an offer carries the `a=crypto` lines and the fingerprint
    /// with `a=setup:actpass` on `RTP/SAVP`, which SDES-only peers understand (and whose
    /// `a=fingerprint` they ignore); an answer takes DTLS-SRTP when the offer has a fingerprint,
    /// else SDES.
    case dtlsOrSDES(fingerprint: CertificateFingerprint)

    /// Our certificate's fingerprint when DTLS-SRTP is allowed, else nil.
    public var dtlsFingerprint: CertificateFingerprint? {
        switch self {
        case .sdes: return nil
        case let .dtls(fingerprint), let .dtlsOrSDES(fingerprint): return fingerprint
        }
    }

    /// Whether SDES keys (`a=crypto`) are allowed.
    public var allowsSDES: Bool {
        switch self {
        case .sdes, .dtlsOrSDES: return true
        case .dtls: return false
        }
    }

    /// The methods' names for an error (`SessionDescriptionError.noCommonKeyExchange`).
    var methodNames: [String] {
        (dtlsFingerprint == nil ? [] : [Self.dtlsName]) + (allowsSDES ? [Self.sdesName] : [])
    }

    static let dtlsName = "DTLS-SRTP"
    static let sdesName = "SDES"
}
