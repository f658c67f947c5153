// SPDX-License-Identifier: Apache-2.0
public import SRTP

/// How a call's media is protected on the wire.
public enum MediaProtection: Sendable, Equatable {
    /// Plain RTP and RTCP: nothing is encrypted or authenticated.
    case plainRTP
    /// SRTP with keys known now (SDES `a=crypto`, RFC 4568): we send with `sending`, the peer
    /// with `receiving`.
    case srtp(sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial)
    /// SRTP keyed by a DTLS handshake on the call's port (DTLS-SRTP, RFC 5763/5764): until its
    /// keys arrive through `CallMedia.updateKeys(sending:receiving:)`, nothing is sent (the
    /// uplink's packets are dropped and counted) and what arrives is dropped and counted. Any
    /// suite with a DTLS-SRTP profile is taken; later keys must keep it.
    case srtpKeyedByHandshake
}
