// SPDX-License-Identifier: Apache-2.0
public import SRTP

/// What a completed DTLS-SRTP handshake keys a call with (RFC 5764 §4.2): the protection
/// profile both chose, our sending key and the peer's (our receiving key), and the peer's
/// certificate fingerprint that was checked against its SDP.
public struct DTLSSRTPKeys: Sendable, Equatable {
    /// The SRTP suite the handshake chose (use_srtp).
    public let profile: SRTPProfile
    /// What we protect what we send with.
    public let sending: SRTPKeyingMaterial
    /// What we unprotect what we receive with.
    public let receiving: SRTPKeyingMaterial
    /// The peer's certificate, as it matched its SDP's fingerprint.
    public let peerFingerprint: CertificateFingerprint
}
