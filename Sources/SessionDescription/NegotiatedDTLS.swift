// SPDX-License-Identifier: Apache-2.0
import SRTP

/// What offer/answer settled for a DTLS-SRTP call: which end of the handshake we are, and the
/// certificate fingerprints the peer's handshake must match. The SRTP suite and keys come from
/// the handshake itself (`SRTPProfile.dtlsPreference`, `SRTPKeyingMaterial.dtlsKeys`), not from
/// the SDP.
public struct NegotiatedDTLS: Sendable, Equatable, CustomStringConvertible {
    /// Our end of the handshake: `.client` sends the ClientHello (we said, or the peer let us
    /// be, `a=setup:active`), `.server` waits for it.
    public var role: DTLSRole
    /// The peer's fingerprints, all of them (media level, else session level): the
    /// certificate its handshake presents must match one (RFC 8122 §5: any may), or no media
    /// flows.
    public var remoteFingerprints: [CertificateFingerprint]

    /// A settled DTLS-SRTP association.
    public init(role: DTLSRole, remoteFingerprints: [CertificateFingerprint]) {
        self.role = role
        self.remoteFingerprints = remoteFingerprints
    }

    /// The role and the peer's fingerprints (public: hashes of a public certificate).
    public var description: String {
        "DTLS-SRTP as \(role), peer fingerprint " + remoteFingerprints.map(\.sdpValue).joined(separator: " or ")
    }
}
